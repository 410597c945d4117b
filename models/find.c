// expect: SAFE
// SAFARI family "find": the first occurrence of e is found, and no cell
// before it holds e.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int find(int a[], int n, int e) {
  for (int i = 0; i < n; i++) {
    if (a[i] == e) {
      return i;
    }
  }
  return -1;
}

int main(void) {
  int a[100000];
  for (int i = 0; i < 100000; i++) {
    a[i] = __VERIFIER_nondet_int();
  }
  int e = __VERIFIER_nondet_int();
  int pos = find(a, 100000, e);
  if (pos >= 0) {
    __VERIFIER_assert(a[pos] == e);
  }
  for (int j = 0; j < pos; j++) {
    __VERIFIER_assert(a[j] != e);
  }
  return 0;
}
