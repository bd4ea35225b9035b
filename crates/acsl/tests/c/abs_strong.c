/* Absolute value, fully specified. */
#include <limits.h>

/*@ requires x > INT_MIN;
    assigns \nothing;
    ensures nonneg: \result >= 0;
    ensures value: \result == x || \result == -x;
    ensures pos: x >= 0 ==> \result == x;
    ensures neg: x < 0 ==> \result == -x;
*/
int abs_value(int x) {
  if (x < 0)
    return -x;
  return x;
}
