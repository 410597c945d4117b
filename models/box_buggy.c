// expect: UNSAFE
// A three-dimensional array (a variable-length box n × n × n) filled with
// the sum of its indices, then every cell tested against a value the test
// claims no cell holds: 3·n - 4, which cells two steps from the far corner
// hold once n ≥ 2. Forward execution, its replay and the certification
// replay handle arrays of up to four dimensions. (A safe variant is not
// among the models: no engine states invariants over three quantified
// indices yet.)
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 20) return 0;
  int a[n][n][n];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        a[i][j][k] = i + j + k;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        __VERIFIER_assert(a[i][j][k] != 3 * n - 4);
  return 0;
}
