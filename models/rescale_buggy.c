// expect: UNSAFE
// The rescaling of rescale.c with a bug: the first loop writes 3·i + 1
// at 700, which the second loop leaves at 701.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[1000];
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  for (int i = 0; i < n; i++) {
    a[i] = 3 * i;
    if (i == 700) a[i] = a[i] + 1;
  }
  for (int i = 0; i < n; i++) {
    if (a[i] >= 2 * i) a[i] = a[i] - 2 * i; else a[i] = -1;
  }
  for (int j = 0; j < n; j++) {
    __VERIFIER_assert(a[j] == j);
  }
  return 0;
}
