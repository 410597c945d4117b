// expect: SAFE
// An array of structs of symbolic size (malloc), split field by field:
// each record gets its key and a copy of it; a struct initialiser and a
// struct assignment set the records.
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
    fresh.copy = fresh.key;
    r[i] = fresh;
  }
  for (int i = 0; i < n; i++) {
    __VERIFIER_assert(r[i].copy == r[i].key);
  }
  return 0;
}
