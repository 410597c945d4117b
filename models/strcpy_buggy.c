// expect: UNSAFE
// strcpy.c that forgets the terminating zero: dst[i] keeps whatever the
// uninitialised array held.
extern char __VERIFIER_nondet_char(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  char src[1000];
  char dst[1000];
  for (int i = 0; i < 999; i++) {
    src[i] = __VERIFIER_nondet_char();
  }
  src[999] = 0;
  int i = 0;
  while (src[i] != 0) {
    dst[i] = src[i];
    i++;
  }
  for (int j = 0; j <= i; j++) {
    __VERIFIER_assert(dst[j] == src[j]);
  }
  return 0;
}
