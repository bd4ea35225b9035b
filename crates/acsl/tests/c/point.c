/* A user type and functions over it. */

struct point {
  int x;
  int y;
};

typedef struct point point_t;

/*@ requires \valid(p);
    requires -1000 <= p->x <= 1000 && -1000 <= p->y <= 1000;
    requires -1000 <= dx <= 1000 && -1000 <= dy <= 1000;
    assigns p->x, p->y;
    ensures p->x == \old(p->x) + dx && p->y == \old(p->y) + dy;
*/
void translate(point_t *p, int dx, int dy) {
  p->x += dx;
  p->y += dy;
}

/*@ requires \valid_read(a) && \valid_read(b);
    assigns \nothing;
    ensures \result == (a->x == b->x && a->y == b->y);
*/
int same_point(const point_t *a, const point_t *b) {
  return a->x == b->x && a->y == b->y;
}
