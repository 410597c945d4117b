// expect: SAFE
// SAFARI family "binary sort": an array of zeros and ones sorted in place
// by swapping; the scanned prefix holds only zeros.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
    __VERIFIER_assume(a[i] == 0 || a[i] == 1);
  }
  int lo = 0;
  int hi = 99999;
  while (lo < hi) {
    if (a[lo] == 0) {
      lo++;
    } else {
      int t = a[lo];
      a[lo] = a[hi];
      a[hi] = t;
      hi--;
    }
  }
  for (int j = 0; j < lo; j++) {
    __VERIFIER_assert(a[j] == 0);
  }
  return 0;
}
