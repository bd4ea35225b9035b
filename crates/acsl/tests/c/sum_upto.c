/* Sum of 0 + 1 + ... + n, with a global call counter. */

int calls;

/*@ requires 0 <= n <= 1000;
    requires 0 <= calls < 1000000;
    assigns calls;
    ensures closed_form: \result == n * (n + 1) / 2;
    ensures counted: calls == \old(calls) + 1;
*/
int sum_upto(int n) {
  int s = 0;
  calls++;
  /*@ loop invariant 0 <= i <= n + 1;
      loop invariant s == i * (i - 1) / 2;
      loop assigns i, s;
      loop variant n + 1 - i; */
  for (int i = 0; i <= n; i++)
    s += i;
  return s;
}
