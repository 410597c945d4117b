// expect: SAFE
// SAFARI family "max in array": the maximum is at least every element.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  int max = a[0];
  for (int i = 1; i < 100000; i++) {
    if (a[i] > max) {
      max = a[i];
    }
  }
  for (int j = 0; j < 100000; j++) {
    __VERIFIER_assert(a[j] <= max);
  }
  return 0;
}
