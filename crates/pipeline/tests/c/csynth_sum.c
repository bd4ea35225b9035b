/* Sum of 0 + 1 + ... + n (after crates/acsl/tests/c/sum_upto.c, without its ACSL). */

int sum_upto(int n) {
  int s = 0;
  for (int i = 0; i <= n; i++)
    s += i;
  return s;
}
