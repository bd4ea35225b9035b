/* Absolute value, with a contract that only bounds the result. */
#include <limits.h>

/*@ requires x > INT_MIN;
    assigns \nothing;
    ensures nonneg: \result >= 0;
*/
int abs_value(int x) {
  if (x < 0)
    return -x;
  return x;
}
