// expect: SAFE
// A global two-dimensional array (all zeros at the start): column c of
// the 64 × 32 grid set cell by cell, then every cell of that column
// checked. Its Horn clause export writes the grid as an array of arrays,
// its start as a nested constant array.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int grid[64][32];

int main(void) {
  int c = __VERIFIER_nondet_int();
  if (c < 0 || c >= 32) return 0;
  for (int r = 0; r < 64; r++) grid[r][c] = 5;
  for (int r = 0; r < 64; r++) __VERIFIER_assert(grid[r][c] == 5);
  return 0;
}
