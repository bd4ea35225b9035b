/* Exchange two integers through pointers. */

/*@ requires \valid(p) && \valid(q);
    assigns *p, *q;
    ensures *p == \old(*q) && *q == \old(*p);
*/
void swap(int *p, int *q) {
  int t = *p;
  *p = *q;
  *q = t;
}
