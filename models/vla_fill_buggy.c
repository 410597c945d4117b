// expect: UNSAFE
// vla_fill.c filling one cell less than it checks: a[n - 1] keeps
// whatever the new array held.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

void fill(int *p, int n, int v) {
  for (int k = 0; k < n; k++) {
    *p++ = v;
  }
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0 || n > 1000000) return 0;
  int a[n];
  int v = __VERIFIER_nondet_int();
  fill(a, n - 1, v);
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(a[i] == v);
  }
  return 0;
}
