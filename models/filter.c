// expect: SAFE
// SAFARI family "filter": the elements above a threshold are kept, in a
// prefix of the same array.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int t = __VERIFIER_nondet_int();
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  int k = 0;
  for (int i = 0; i < 100000; i++) {
    if (a[i] <= t) {
      continue;
    }
    a[k] = a[i];
    k = k + 1;
  }
  for (int j = 0; j < k; j++) {
    __VERIFIER_assert(a[j] > t);
  }
  return 0;
}
