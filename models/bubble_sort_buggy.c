// expect: UNSAFE
// bubble_sort.c whose passes start one element late: a[0] and a[1] are
// never compared.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int k = 0; k < 100000; k++) {
    a[k] = __VERIFIER_nondet_int();
  }
  int done = 0;
  while (!done) {
    done = 1;
    for (int i = 2; i < 100000; i++) {
      if (a[i] < a[i - 1]) {
        int t = a[i - 1];
        a[i - 1] = a[i];
        a[i] = t;
        done = 0;
      }
    }
  }
  for (int x = 0; x < 100000; x++) {
    for (int y = x + 1; y < 100000; y++) {
      __VERIFIER_assert(a[x] <= a[y]);
    }
  }
  return 0;
}
