// expect: SAFE
// SAFARI family "vararg": positive arguments end with a zero sentinel;
// counting up to the sentinel finds all of them.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int args[1000];
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(0 <= n && n < 1000);
  for (int i = 0; i < n; i++) {
    args[i] = __VERIFIER_nondet_int();
    __VERIFIER_assume(args[i] > 0);
  }
  args[n] = 0;
  int count = 0;
  while (args[count] != 0) {
    count++;
  }
  __VERIFIER_assert(count == n);
  return 0;
}
