// expect: SAFE
// A two-dimensional variable-length array: every cell of a row set,
// one chosen row checked.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  if (n <= 0 || m <= 0 || n > 1000 || m > 1000) return 0;
  int g[n][m];
  int r = __VERIFIER_nondet_int();
  if (r < 0 || r >= n) return 0;
  for (int j = 0; j < m; j++) {
    g[r][j] = j;
  }
  for (int j = 0; j < m; j++) {
    __VERIFIER_assert(g[r][j] == j);
  }
  return 0;
}
