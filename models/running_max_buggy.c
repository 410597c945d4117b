// expect: UNSAFE
// running_max.c whose raising loop starts one element late: a[1] may stay
// below a[0].
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  for (int i = 2; i < 100000; i++) {
    if (a[i] < a[i - 1]) {
      a[i] = a[i - 1];
    }
  }
  for (int x = 0; x < 100000; x++) {
    for (int y = x + 1; y < 100000; y++) {
      __VERIFIER_assert(a[x] <= a[y]);
    }
  }
  return 0;
}
