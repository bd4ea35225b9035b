/* The larger of two integers. */

int max2(int a, int b) {
  if (a > b)
    return a;
  return b;
}
