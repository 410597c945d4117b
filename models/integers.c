// expect: SAFE
// SAFARI family "integers": values computed with %, a switch and a
// do-while loop stay in range; unsigned arithmetic wraps.
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[100000];
  int i = 0;
  do {
    switch (i % 3) {
    case 0:
      a[i] = 1;
      break;
    case 1:
      a[i] = 2;
      break;
    default:
      a[i] = 3;
    }
    i++;
  } while (i < 100000);
  for (int j = 0; j < 100000; j++) {
    __VERIFIER_assert(a[j] >= 1 && a[j] <= 3);
  }
  unsigned int u = 0;
  u = u - 1;
  __VERIFIER_assert(u == 4294967295u);
  return 0;
}
