// expect: SAFE
// SAFARI family "strcmp": a string compared with its copy is equal.
extern char __VERIFIER_nondet_char(void);
extern void __VERIFIER_assert(int cond);

int compare(char s[], char t[]) {
  int i = 0;
  while (s[i] != 0 && s[i] == t[i]) {
    i++;
  }
  return s[i] - t[i];
}

int main(void) {
  char s[1000];
  char t[1000];
  for (int i = 0; i < 999; i++) {
    s[i] = __VERIFIER_nondet_char();
    t[i] = s[i];
  }
  s[999] = 0;
  t[999] = 0;
  __VERIFIER_assert(compare(s, t) == 0);
  return 0;
}
