// expect: SAFE
// A two-dimensional array: column c of an n × m grid set cell by cell,
// then every cell of that column checked. Its Horn clause export
// writes the grid as an array of arrays.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  if (n <= 0 || m <= 0 || n > 1000 || m > 1000) return 0;
  int g[n][m];
  int c = __VERIFIER_nondet_int();
  if (c < 0 || c >= m) return 0;
  for (int i = 0; i < n; i++) {
    g[i][c] = 5;
  }
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(g[i][c] == 5);
  }
  return 0;
}
