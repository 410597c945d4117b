// expect: SAFE
// An array of pointers, each to its own allocation of one struct
// (p[i] = malloc(sizeof(struct cell))): the allocations do not alias,
// so writing through p[1] leaves what p[0] points to unchanged.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

struct cell {
  int value;
  int mark;
};

int main(void) {
  struct cell *p[2];
  for (int i = 0; i < 2; i++) {
    p[i] = malloc(sizeof(struct cell));
    p[i]->value = __VERIFIER_nondet_int();
    p[i]->mark = 0;
  }
  int v = p[0]->value;
  p[1]->value = v + 1;
  p[1]->mark = 1;
  __VERIFIER_assert(p[0]->value == v && p[0]->mark == 0);
  return 0;
}
