// Scopes, shadowing, nested calls, static locals, globals, checked against gcc.
extern void __VERIFIER_assert(int cond);

int g[8] = {5, 6, 7};
int total;

int twice(int x) {
  return 2 * x;
}

int add_twice(int a[], int i, int x) {
  a[i] = a[i] + twice(x);
  total += a[i];
  return a[i];
}

int counter(void) {
  static int n = 10;
  n++;
  return n;
}

int main(void) {
  int i = 100;
  for (int i = 0; i < 3; i++) {
    int i2 = i * 2;
    g[i] = g[i] + i2;
  }
  __VERIFIER_assert(i == 100);
  __VERIFIER_assert(g[0] == 5 && g[1] == 8 && g[2] == 11 && g[3] == 0);
  {
    int i = 7;
    __VERIFIER_assert(add_twice(g, 3, i) == 14);
  }
  __VERIFIER_assert(add_twice(g, 0, twice(1)) == 9);
  __VERIFIER_assert(total == 23 && g[3] == 14);
  int c1 = counter();
  int c2 = counter();
  __VERIFIER_assert(c1 == 11 && c2 == 12);
  int k = 0;
  for (int j = 0; j < 4; j++) {
    for (int j2 = 0; j2 < 4; j2++) {
      if (j2 > j) break;
      k += j * 4 + j2;
    }
  }
  __VERIFIER_assert(k == 0 + 4 + 5 + 8 + 9 + 10 + 12 + 13 + 14 + 15);
  return 0;
}
