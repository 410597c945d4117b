// expect: SAFE
// Two-variable sortedness: raising each element to the one before it makes
// the array sorted; the proof needs ∀z1 < z2 < i. a[z1] ≤ a[z2].
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  for (int i = 1; i < 100000; i++) {
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
