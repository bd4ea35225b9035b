/* Index of the first element equal to x, or -1. */

/*@ requires n >= 0 && \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures found: 0 <= \result < n ==> a[\result] == x;
    ensures first: 0 <= \result < n ==> \forall integer k; 0 <= k < \result ==> a[k] != x;
    ensures absent: \result == -1 ==> \forall integer k; 0 <= k < n ==> a[k] != x;
    ensures range: -1 <= \result < n;
*/
int linear_search(const int *a, int n, int x) {
  /*@ loop invariant bound: 0 <= i <= n;
      loop invariant not_yet: \forall integer k; 0 <= k < i ==> a[k] != x;
      loop assigns i;
      loop variant n - i; */
  for (int i = 0; i < n; i++) {
    if (a[i] == x)
      return i;
  }
  return -1;
}
