// expect: SAFE
// Mirror-image indices: b is a reversed copy of a; the proof needs
// ∀z < i. b[z] = a[99999 - z], then ∀z ∈ [x, 100000). a[z] = b[99999 - z].
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int b[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  for (int i = 0; i < 100000; i++) {
    b[i] = a[99999 - i];
  }
  for (int x = 0; x < 100000; x++) {
    __VERIFIER_assert(b[99999 - x] == a[x]);
  }
  return 0;
}
