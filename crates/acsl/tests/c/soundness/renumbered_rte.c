/* The guard against overflow of k + 1 cannot be proved: the original is not
   fully proved. Deleting `a = n + 1;` removes the guard before it, so WP numbers
   the remaining guards differently, and yet the specification still holds. */
/*@ requires 0 <= n <= 100;
    assigns \nothing;
    ensures \result >= 0; */
int f(int n, int k) {
  int a = 0;
  int b = 0;
  a = n + 1;
  b = k + 1;
  return a;
}
