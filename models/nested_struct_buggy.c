// expect: UNSAFE
// nested_struct.c with the copy before the choice: p.y keeps the
// previous iteration's value.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

struct point {
  int x;
  int y;
};
struct item {
  struct point pos;
  int tag;
};

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0) return 0;
  struct item *s = malloc(n * sizeof *s);
  for (int i = 0; i < n; i++) {
    struct point p;
    p.x = __VERIFIER_nondet_int();
    p.y = p.x;
    p.x = __VERIFIER_nondet_int();
    s[i].pos = p;
  }
  for (int k = 0; k < n; k++) {
    struct item *q = &s[k];
    __VERIFIER_assert(q->pos.x == q->pos.y);
  }
  return 0;
}
