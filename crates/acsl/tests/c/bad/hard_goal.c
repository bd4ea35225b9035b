/* A true but non-linear property that the provers cannot settle quickly. */

/*@ requires 0 < a < 1000 && 0 < b < 1000 && 0 < c < 1000;
    assigns \nothing;
    ensures \result == 0;
*/
int cube_sum(int a, int b, int c) {
  if ((long long)a * a * a + (long long)b * b * b == (long long)c * c * c)
    return 1;
  return 0;
}
