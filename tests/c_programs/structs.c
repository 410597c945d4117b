// Structs (initialisers with designators, assignment, nested, typedef, passed
// and returned by value, arrays of structs, pointers to elements), arrays of
// three dimensions, pointers to rows, arrays of pointers to their own
// allocations, checked against gcc.
#include <stdlib.h>
extern void __VERIFIER_assert(int cond);
struct point { int x; int y; };
typedef struct { struct point p; int tag[3]; short w; } shape;
struct node { int key; int val; };
int norm1(struct point q) { return (q.x < 0 ? -q.x : q.x) + (q.y < 0 ? -q.y : q.y); }
struct point mk(int x, int y) { struct point r = { x, y }; return r; }
int main(void) {
  struct point a = { 1, 2 };
  struct point b = { .y = 5 };
  __VERIFIER_assert(a.x == 1 && a.y == 2 && b.x == 0 && b.y == 5);
  b = a;
  b.x = 7;
  __VERIFIER_assert(a.x == 1 && b.x == 7 && b.y == 2);
  shape s = { { 3, 4 }, { 9, 8, 7 }, 2 };
  __VERIFIER_assert(s.p.x == 3 && s.p.y == 4 && s.tag[1] == 8 && s.w == 2);
  s.tag[2] += s.p.y;
  __VERIFIER_assert(s.tag[2] == 11);
  struct node t[5];
  for (int i = 0; i < 5; i++) { t[i].key = i; t[i].val = 10 * i; }
  __VERIFIER_assert(t[3].key == 3 && t[4].val == 40);
  struct node *p = &t[1];
  p->val = -1;
  (p + 2)->key = 99;
  __VERIFIER_assert(t[1].val == -1 && t[3].key == 99);
  p++;
  __VERIFIER_assert(p->key == 2 && (*p).val == 20);
  struct node *h = malloc(4 * sizeof(struct node));
  for (int i = 0; i < 4; i++) h[i] = t[i];
  __VERIFIER_assert(h[1].val == -1 && h[3].key == 99);
  __VERIFIER_assert(norm1(mk(-3, 4)) == 7);
  struct point ps[2][2] = { { {1, 2}, {3, 4} }, { {5, 6}, {7, 8} } };
  __VERIFIER_assert(ps[1][0].y == 6 && ps[0][1].x == 3);
  int m[2][3][4];
  for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) for (int k = 0; k < 4; k++) m[i][j][k] = i * 100 + j * 10 + k;
  __VERIFIER_assert(m[1][2][3] == 123 && m[0][1][2] == 12);
  int (*row)[4] = m[1];
  __VERIFIER_assert(row[2][1] == 121);
  int n = 3;
  int *g = malloc(sizeof(int) * n * n);
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) g[i * n + j] = i - j;
  __VERIFIER_assert(g[2 * n + 0] == 2 && g[1] == -1);
  int **rows = malloc(sizeof(int *) * n);
  for (int i = 0; i < n; i++) { rows[i] = malloc(sizeof(int) * n); rows[i][i] = i; }
  __VERIFIER_assert(rows[2][2] == 2 && rows[1][1] == 1);
  struct node *ns[3];
  for (int i = 0; i < 3; i++) { ns[i] = malloc(sizeof(struct node)); ns[i]->key = i + 1; }
  __VERIFIER_assert(ns[0]->key == 1 && ns[2]->key == 3);
  return 0;
}
