// expect: UNSAFE
// init_test.c with an off-by-one: the last cell is never written, and a
// local array starts with arbitrary contents.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int v = __VERIFIER_nondet_int();
  for (int i = 0; i < 99999; i++) {
    a[i] = v;
  }
  for (int i = 0; i < 100000; i++) {
    __VERIFIER_assert(a[i] == v);
  }
  return 0;
}
