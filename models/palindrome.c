// expect: SAFE
// An array made a palindrome in place: the first half copies the second
// in mirror order; the proof needs ∀z < i. c[z] = c[9999 - z] (the second
// half is never written).
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int c[10000];
  for (int i = 0; i < 10000; i++) {
    c[i] = __VERIFIER_nondet_int();
  }
  for (int i = 0; i < 5000; i++) {
    c[i] = c[9999 - i];
  }
  for (int x = 0; x < 10000; x++) {
    __VERIFIER_assert(c[9999 - x] == c[x]);
  }
  return 0;
}
