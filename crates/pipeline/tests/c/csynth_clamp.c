/* Restrict a value to the interval [lo, hi] (crates/acsl/tests/c/clamp.c without its ACSL). */

int clamp(int x, int lo, int hi) {
  if (x < lo)
    return lo;
  if (x > hi)
    return hi;
  return x;
}
