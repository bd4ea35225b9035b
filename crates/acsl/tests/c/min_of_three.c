/* The minimum of three integers, built on the minimum of two. */

/*@ assigns \nothing;
    ensures \result <= a && \result <= b;
    ensures \result == a || \result == b;
*/
int min2(int a, int b) {
  return a < b ? a : b;
}

/*@ assigns \nothing;
    ensures \result <= a && \result <= b && \result <= c;
    ensures \result == a || \result == b || \result == c;
*/
int min3(int a, int b, int c) {
  return min2(min2(a, b), c);
}
