// Division, remainder, conversions and shifts, checked against gcc.
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a = -7;
  int b = 2;
  __VERIFIER_assert(a / 2 == -3 && a % 2 == -1);
  __VERIFIER_assert(a / -2 == 3 && a % -2 == -1);
  __VERIFIER_assert(7 / -2 == -3 && 7 % -2 == 1);
  __VERIFIER_assert(a * 3 + b == -19);
  unsigned int u = 0;
  u = u - 1;
  __VERIFIER_assert(u == 4294967295u);
  u = u + 2;
  __VERIFIER_assert(u == 1);
  unsigned char c = 250;
  c += 10;
  __VERIFIER_assert(c == 4);
  char s = 127;
  s++;
  __VERIFIER_assert(s == -128);
  int m = -1;
  __VERIFIER_assert((unsigned int) m == 4294967295u);
  __VERIFIER_assert(m < 0u ? 0 : 1);
  __VERIFIER_assert((int) 4294967290u == -6);
  __VERIFIER_assert((-9 >> 1) == -5 && (9 << 2) == 36);
  unsigned int big = 3000000000u;
  __VERIFIER_assert(big / 7 == 428571428 && big % 7 == 4);
  _Bool t = 5;
  __VERIFIER_assert(t == 1);
  short sh = 40000;
  __VERIFIER_assert(sh == -25536);
  return 0;
}
