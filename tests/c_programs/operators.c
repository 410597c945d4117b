// Every integer operator on variables (products, division and remainder
// by variables, bitwise operators, shifts by variables), checked against gcc.
extern void __VERIFIER_assert(int cond);

int main(void) {
  int x = -7;
  int y = 3;
  int z = -2;
  int one = 1;
  __VERIFIER_assert(x * y == -21 && x * z == 14 && y * y * y == 27);
  __VERIFIER_assert(x / y == -2 && x % y == -1);
  __VERIFIER_assert(x / z == 3 && x % z == -1);
  __VERIFIER_assert(y / z == -1 && y % z == 1);
  __VERIFIER_assert(-y / z == 1 && -y % z == -1);
  __VERIFIER_assert((x & y) == 1 && (x | y) == -5 && (x ^ y) == -6);
  __VERIFIER_assert((x & z) == -8 && (x | z) == -1 && (x ^ z) == 7);
  __VERIFIER_assert(~x == 6 && ~y == -4 && ~(x ^ y) == 5);
  unsigned int u = 4000000000u;
  unsigned int v = 123456789u;
  __VERIFIER_assert((u & v) == 105580544u && (u | v) == 4017876245u && (u ^ v) == 3912295701u);
  __VERIFIER_assert(~v == 4171510506u && u / v == 32 && u % v == 49382752u);
  __VERIFIER_assert((u >> y) == 500000000u && (v << one) == 246913578u);
  __VERIFIER_assert((x << one) == -14 && (x >> one) == -4 && (x >> y) == -1);
  int k = 5;
  __VERIFIER_assert((one << k) == 32 && (1024 >> k) == 32);
  long long big = -1234567890123LL;
  long long mask = 0xFFFFFFFFLL;
  __VERIFIER_assert((big & mask) == 2382691125LL && (big | mask) == -1232655613953LL);
  __VERIFIER_assert((big ^ mask) == -1235038305078LL);
  unsigned char c = 200;
  unsigned char d = 100;
  __VERIFIER_assert((c & d) == 64 && (c | d) == 236 && (c ^ d) == 172 && ~c == -201);
  int acc = 0;
  for (int i = 1; i <= 10; i++) {
    acc = acc ^ (i * i);
    acc = acc | (i & 3);
  }
  __VERIFIER_assert(acc == 103);
  int num = -1;
  __VERIFIER_assert(num * num * num == -1 && num * num == 1);
  return 0;
}
