// The width of long: 4 bytes under ILP32 (the default), 8 under LP64.
extern void __VERIFIER_assert(int cond);
int main(void) {
  __VERIFIER_assert((int)sizeof(long) == 4);
  return 0;
}
