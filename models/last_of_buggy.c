// expect: UNSAFE
// last_of.c reading the first cell instead: with one cell it is the
// last, with more it was never written.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int *last(int *p, int n) {
  return p + (n - 1);
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0) return 0;
  int *a = malloc(n * sizeof(int));
  int *q = last(a, n);
  *q = 42;
  __VERIFIER_assert(a[0] == 42);
  __VERIFIER_assert(q - a == n - 1);
  return 0;
}
