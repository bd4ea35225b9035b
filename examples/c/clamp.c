/* Restrict a value to the interval [lo, hi]. */

/*@ requires lo <= hi;
    assigns \nothing;
    ensures inside: lo <= \result <= hi;
    ensures below: x < lo ==> \result == lo;
    ensures above: x > hi ==> \result == hi;
    ensures kept: lo <= x <= hi ==> \result == x;
*/
int clamp(int x, int lo, int hi) {
  if (x < lo)
    return lo;
  if (x > hi)
    return hi;
  return x;
}
