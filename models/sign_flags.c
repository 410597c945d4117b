// expect: SAFE
// b records the sign of a, element by element; a second pass finds them
// consistent: the proof needs ∀z < i. (a[z] ≥ 0 → b[z] = 1) ∧
// (a[z] < 0 → b[z] = 0), two relations at the same index.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int b[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  for (int i = 0; i < 100000; i++) {
    if (a[i] >= 0) {
      b[i] = 1;
    } else {
      b[i] = 0;
    }
  }
  int ok = 1;
  for (int i = 0; i < 100000; i++) {
    if (a[i] >= 0 && b[i] != 1) {
      ok = 0;
    }
    if (a[i] < 0 && b[i] != 0) {
      ok = 0;
    }
  }
  __VERIFIER_assert(ok);
  return 0;
}
