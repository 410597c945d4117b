// expect: SAFE
// Written for IC3/PDR (issue 19): every third element of `src`, from
// position 2 on, is gathered into `dst`. The proof needs
// `∀z ∈ [0, k). dst[z] = src[3·z + 2]` while gathering: a range lemma
// whose second array is read at an affine function of the quantified
// variable, which quantifier generalisation finds only when it abstracts
// the counter `k` itself rather than each index term (`k`, `3·k + 2`)
// apart, together with `i = 3·k + 2`.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 100000) return 0;
  int *src = malloc(sizeof(int) * (3 * n));
  int *dst = malloc(sizeof(int) * n);
  for (int i = 0; i < 3 * n; i++) {
    src[i] = __VERIFIER_nondet_int();
  }
  int k = 0;
  for (int i = 2; i < 3 * n; i = i + 3) {
    dst[k] = src[i];
    k = k + 1;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(dst[j] == src[3 * j + 2]);
  }
  return 0;
}
