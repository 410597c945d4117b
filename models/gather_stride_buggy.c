// expect: UNSAFE
// The bug of gather_stride.c: the gathering loop starts one element
// early, so dst[z] = src[3·z + 1], which the test at src[3·z + 2] sees
// unless the nondeterministic values happen to agree.
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
  for (int i = 1; i < 3 * n; i = i + 3) {
    dst[k] = src[i];
    k = k + 1;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(dst[j] == src[3 * j + 2]);
  }
  return 0;
}
