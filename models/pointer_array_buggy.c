// expect: UNSAFE
// pointer_array.c with both slots given the same allocation: the write
// through p[1] changes what p[0] points to.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

struct cell {
  int value;
  int mark;
};

int main(void) {
  struct cell *p[2];
  struct cell *one = malloc(sizeof(struct cell));
  for (int i = 0; i < 2; i++) {
    p[i] = one;
    p[i]->value = __VERIFIER_nondet_int();
    p[i]->mark = 0;
  }
  int v = p[0]->value;
  p[1]->value = v + 1;
  p[1]->mark = 1;
  __VERIFIER_assert(p[0]->value == v && p[0]->mark == 0);
  return 0;
}
