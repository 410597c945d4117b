// expect: SAFE
// SAFARI family "initialization": cells initialised from their index, up
// to a symbolic length n.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(0 < n && n <= 100000);
  for (int i = 0; i < n; i++) {
    a[i] = 3 * i + 1;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(a[j] > j);
  }
  return 0;
}
