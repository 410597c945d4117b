// expect: SAFE
// Written for IC3/PDR (issue 19): the second loop rescales what the first
// one wrote (3·i down to i), under a test that only the first loop's
// facts decide. The proof needs a fact of each loop over a range bounded
// by its counter — `∀z ∈ [0, i). a[z] = z` and `∀z ∈ [i, n). a[z] = 3·z` —
// which no template of candidate invariants states (a multiple of the
// index) and whose interpolants lazy abstraction does not find in time.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[1000];
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  for (int i = 0; i < n; i++) {
    a[i] = 3 * i;
  }
  for (int i = 0; i < n; i++) {
    if (a[i] >= 2 * i) a[i] = a[i] - 2 * i; else a[i] = -1;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(a[j] == j);
  }
  return 0;
}
