/* Parity by mutual recursion. */

int is_odd(int n);

/*@ requires 0 <= n <= 1000;
    decreases n;
    assigns \nothing;
    ensures \result == (n % 2 == 0);
*/
int is_even(int n) {
  if (n == 0)
    return 1;
  return is_odd(n - 1);
}

/*@ requires 0 <= n <= 1000;
    decreases n;
    assigns \nothing;
    ensures \result == (n % 2 == 1);
*/
int is_odd(int n) {
  if (n == 0)
    return 0;
  return is_even(n - 1);
}
