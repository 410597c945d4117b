// expect: UNSAFE
// The running totals of running_total.c with the second loop started at 1:
// the total is 3 short, for every n.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0 || n > 100000) return 0;
  int *a = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    a[i] = 2 * i + 5;
  }
  long long total = 0;
  for (int i = 1; i < n; i++) {
    total = total + 3;
  }
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(a[i] == 2 * i + 5);
  }
  __VERIFIER_assert(total == 3 * (long long)n);
  return 0;
}
