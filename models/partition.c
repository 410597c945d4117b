// expect: SAFE
// SAFARI family "partition": non-negative elements go to b, negative ones
// to c.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int b[100000];
  int c[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  int nb = 0, nc = 0;
  for (int i = 0; i < 100000; i++) {
    if (a[i] >= 0) {
      b[nb] = a[i];
      nb++;
    } else {
      c[nc++] = a[i];
    }
  }
  for (int j = 0; j < nb; j++) {
    __VERIFIER_assert(b[j] >= 0);
  }
  for (int j = 0; j < nc; j++) {
    __VERIFIER_assert(c[j] < 0);
  }
  return 0;
}
