// Side effects inside expressions, checked against gcc.
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[10];
  int i = 0;
  while (i < 10) {
    int v = 3 * i + 1;
    a[i++] = v;
  }
  __VERIFIER_assert(i == 10 && a[0] == 1 && a[3] == 10);
  a[2] += 5;
  a[2]++;
  int old = a[2]--;
  __VERIFIER_assert(old == 13 && a[2] == 12);
  int x = 3, y = x + 1;
  int z = x++ + ++y;
  __VERIFIER_assert(z == 8 && x == 4 && y == 5);
  int n = 0;
  while (n++ < 5) {
  }
  __VERIFIER_assert(n == 6);
  int s = 0;
  for (int p = 0, q = 10; p < q; p++, q--) {
    s += q - p;
  }
  __VERIFIER_assert(s == 10 + 8 + 6 + 4 + 2);
  int t = x > 3 ? (y > 5 ? 1 : 2) : 3;
  __VERIFIER_assert(t == 2 && !0 == 1 && !7 == 0);
  char c[4] = {-1, 'a', 0};
  __VERIFIER_assert(c[0] == -1 && c[1] == 97 && c[2] == 0);
  int k = -7;
  a[(k + 17) / 3] = 42;
  __VERIFIER_assert(a[3] == 42);
  int d = 0;
  do {
    d += 2;
    if (d == 6) break;
  } while (d < 100);
  __VERIFIER_assert(d == 6);
  int m = 5;
  m *= 3;
  m -= 1;
  m /= 4;
  m %= 2;
  m <<= 3;
  __VERIFIER_assert(m == 8);
  return 0;
}
