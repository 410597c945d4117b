// expect: UNSAFE
// malloc_init.c checking one cell too many: a[n] was never written.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0) return 0;
  int *a = malloc(sizeof(int) * n);
  int v = __VERIFIER_nondet_int();
  for (int i = 0; i < n; i++) {
    a[i] = v;
  }
  for (int i = 0; i <= n; i++) {
    __VERIFIER_assert(a[i] == v);
  }
  free(a);
  return 0;
}
