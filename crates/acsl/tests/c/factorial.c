/* Factorial, recursive, against a logic definition. */

/*@ logic integer fact(integer n) = n <= 0 ? 1 : n * fact(n - 1); */

/*@ requires 0 <= n <= 12;
    decreases n;
    assigns \nothing;
    ensures \result == fact(n);
*/
int factorial(int n) {
  if (n == 0)
    return 1;
  return n * factorial(n - 1);
}
