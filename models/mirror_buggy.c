// expect: UNSAFE
// Like mirror.c, but the reversed copy starts at 1: b[0] keeps its 0, and
// the check of a[99999] against it fails when a[99999] is not 0.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int b[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
    b[i] = 0;
  }
  for (int i = 1; i < 100000; i++) {
    b[i] = a[99999 - i];
  }
  for (int x = 0; x < 100000; x++) {
    __VERIFIER_assert(a[x] == b[99999 - x]);
  }
  return 0;
}
