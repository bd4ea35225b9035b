/* Absolute value (crates/acsl/tests/c/abs_strong.c without its ACSL). */
#include <limits.h>

int abs_value(int x) {
  if (x < 0)
    return -x;
  return x;
}
