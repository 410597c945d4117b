// expect: SAFE
// A variable-length array filled by a function that takes it as a
// pointer and moves that pointer (*p++ = v); every cell is checked.
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
  fill(a, n, v);
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(a[i] == v);
  }
  return 0;
}
