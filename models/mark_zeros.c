// expect: SAFE
// Written for IC3/PDR (issue 19): a second loop marks the zeros the first
// loop wrote. Its proof holds a range fact on each side of the counter,
// `∀z ∈ [0, i). a[z] = 5` and `∀z ∈ [i, n). a[z] = 0`; IC3/PDR finds both
// by quantifying the cells its blocked cubes read at the counter.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[1000];
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  for (int i = 0; i < n; i++) {
    a[i] = 0;
  }
  for (int i = 0; i < n; i++) {
    if (a[i] == 0) a[i] = 5; else a[i] = 7;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(a[j] == 5);
  }
  return 0;
}
