// expect: UNSAFE
// pointer_walk.c stepping two cells at a time: the odd cells stay
// zero (calloc) and the walk may overshoot the end.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0) return 0;
  int *a = calloc(n, sizeof(int));
  int *p = a;
  while (p < a + n) {
    *p = 1;
    p += 2;
  }
  __VERIFIER_assert(p - a == n);
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(a[i] == 1);
  }
  return 0;
}
