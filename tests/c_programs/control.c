// Loops, early exits, goto, switch with fall-through, do-while with
// continue, side effects in conditions, checked against gcc.
extern void __VERIFIER_assert(int cond);

int calls = 0;

int first_above(int a[], int n, int t) {
  for (int i = 0; i < n; i++) {
    if (a[i] > t) {
      return i;
    }
  }
  return -1;
}

int bump(int x) {
  calls++;
  return x + 1;
}

void fill(int a[], int n) {
  int i = 0;
again:
  a[i] = (i * 7) % 5;
  i++;
  if (i < n) goto again;
}

int main(void) {
  int a[10];
  fill(a, 10);
  __VERIFIER_assert(a[0] == 0 && a[1] == 2 && a[4] == 3 && a[9] == 3);
  __VERIFIER_assert(first_above(a, 10, 3) == 2);
  __VERIFIER_assert(first_above(a, 10, 9) == -1);
  // bubble sort
  for (int i = 0; i < 10; i++) {
    for (int j = 0; j + 1 < 10 - i; j++) {
      if (a[j] > a[j + 1]) {
        int t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
    }
  }
  for (int k = 0; k + 1 < 10; k++) {
    __VERIFIER_assert(a[k] <= a[k + 1]);
  }
  int sum = 0;
  for (int i = 0; i < 10; i++) {
    switch (a[i]) {
    case 0:
      sum += 100;
    case 1:
      sum += 10;
      break;
    case 3:
      continue;
    default:
      sum += 1;
    }
    sum += 1000;
  }
  __VERIFIER_assert(sum == 2 * 1110 + 2 * 1010 + 2 * 1001 + 2 * 1001);
  int n = 0, i = 0;
  do {
    i++;
    if (i % 3 == 0) continue;
    n += i;
  } while (i < 10);
  __VERIFIER_assert(n == 1 + 2 + 4 + 5 + 7 + 8 + 10);
  int x = 0, y = 0;
  if (x > 0 && bump(x) > 0) y = 1;
  __VERIFIER_assert(calls == 0 && y == 0);
  if (x == 0 || bump(x) > 0) y = 2;
  __VERIFIER_assert(calls == 0 && y == 2);
  y = x ? bump(5) : bump(7);
  __VERIFIER_assert(calls == 1 && y == 8);
  int p = 0, q = 0;
  int r = (p++ && q++);
  __VERIFIER_assert(p == 1 && q == 0 && r == 0);
  r = (p, q = 4, p + q);
  __VERIFIER_assert(r == 5 && q == 4);
  int b[5] = {1, 2};
  __VERIFIER_assert(b[0] == 1 && b[1] == 2 && b[4] == 0);
  int w = 0;
  while (1) {
    w += 3;
    if (w > 10) break;
  }
  __VERIFIER_assert(w == 12);
  return 0;
}
