// expect: UNSAFE
// find.c without the early exit: the search returns the last occurrence,
// so an earlier cell may hold e too.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  int e = __VERIFIER_nondet_int();
  int pos = -1;
  for (int i = 0; i < 100000; i++) {
    if (a[i] == e) {
      pos = i;
    }
  }
  for (int j = 0; j < pos; j++) {
    __VERIFIER_assert(a[j] != e);
  }
  return 0;
}
