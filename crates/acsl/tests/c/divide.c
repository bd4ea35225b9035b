/* Quotient and remainder by repeated subtraction. */

/*@ requires n >= 0 && d > 0;
    requires \valid(q) && \valid(r) && \separated(q, r);
    assigns *q, *r;
    ensures euclid: *q * d + *r == n;
    ensures rest: 0 <= *r < d;
*/
void divide(int n, int d, int *q, int *r) {
  int quot = 0;
  int rem = n;
  /*@ loop invariant inv_eq: quot * d + rem == n;
      loop invariant inv_pos: 0 <= rem <= n && 0 <= quot <= n;
      loop assigns quot, rem;
      loop variant rem; */
  while (rem >= d) {
    rem -= d;
    quot++;
  }
  *q = quot;
  *r = rem;
}
