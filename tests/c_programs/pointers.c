// Pointers into arrays (malloc, calloc, realloc, VLAs, p + i, p++, *(p + k), &a[i],
// p[i], differences and comparisons, pointers passed to and returned from
// functions), checked against gcc.
#include <stdlib.h>
extern void __VERIFIER_assert(int cond);
int sum(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
int *mid(int *p, int n) { return p + n / 2; }
void fill(int *p, int n, int v) { for (int k = 0; k < n; k++) *(p + k) = v + k; }
int main(void) {
  int n = 10;
  int *a = malloc(sizeof(int) * n);
  int *b = (int *)calloc(n, sizeof(int));
  fill(a, n, 3);
  __VERIFIER_assert(a[0] == 3 && a[9] == 12);
  __VERIFIER_assert(b[4] == 0);
  int *p = a + 2;
  __VERIFIER_assert(*p == 5 && p[1] == 6 && *(p + 3) == 8);
  p++;
  __VERIFIER_assert(*p == 6);
  p += 2; --p;
  __VERIFIER_assert(*p == 7 && p - a == 4);
  int *q = &a[7];
  __VERIFIER_assert(q > p && q - p == 3 && *q == 10);
  *q = 100;
  __VERIFIER_assert(a[7] == 100);
  __VERIFIER_assert(sum(a, 3) == 12);
  int *m = mid(a, n);
  __VERIFIER_assert(*m == 8);
  b[1] = 7;
  __VERIFIER_assert(a[1] == 4 && b[1] == 7);
  int vla[n];
  for (int i = 0; i < n; i++) vla[i] = i * i;
  __VERIFIER_assert(vla[3] == 9 && sum(vla, 4) == 14);
  int *r = vla;
  while (*r != 16) r++;
  __VERIFIER_assert(r - vla == 4);
  a = realloc(a, sizeof(int) * 2 * n);
  __VERIFIER_assert(a[0] == 3 && a[7] == 100);
  int *z = 0;
  __VERIFIER_assert(z == 0 && !z && a != 0);
  int s = 0;
  for (int k = 0; k < 3; k++) {
    int t[4];
    for (int i = 0; i < 4; i++) t[i] = k + i;
    int *u = t + 1;
    s += u[2];
  }
  __VERIFIER_assert(s == 12);
  free(b);
  free(a);
  return 0;
}
