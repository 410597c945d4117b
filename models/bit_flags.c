// expect: SAFE
// C's bitwise operators on signed and unsigned words: a word xor itself
// is zero, a small value has no high bit, or-ing in a bit keeps it. Their
// Horn clause export writes each operator exactly over bit-vectors.
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int y = __VERIFIER_nondet_int();
  __VERIFIER_assert((y ^ y) == 0);
  if (y < 0 || y > 100) return 0;
  __VERIFIER_assert((y & 128) == 0);
  unsigned int u = __VERIFIER_nondet_uint();
  if (u > 7u) return 0;
  __VERIFIER_assert((u | 8u) >= 8u);
  return 0;
}
