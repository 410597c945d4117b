// expect: SAFE
// SAFARI family "selection sort": after round i, a[i] is at most every
// later element.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  for (int i = 0; i < 99999; i++) {
    int m = i;
    for (int j = i + 1; j < 100000; j++) {
      if (a[j] < a[m]) {
        m = j;
      }
    }
    if (m != i) {
      int t = a[i];
      a[i] = a[m];
      a[m] = t;
    }
    for (int k = i + 1; k < 100000; k++) {
      __VERIFIER_assert(a[i] <= a[k]);
    }
  }
  return 0;
}
