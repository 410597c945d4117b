// expect: UNSAFE
// struct_array.c copying the key before it is chosen: the copy keeps
// the initialiser's 0.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

typedef struct {
  int key;
  int copy;
} record;

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0) return 0;
  record *r = malloc(n * sizeof(record));
  for (int i = 0; i < n; i++) {
    record fresh = { __VERIFIER_nondet_int(), 0 };

    r[i] = fresh;
  }
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(r[i].copy == r[i].key);
  }
  return 0;
}
