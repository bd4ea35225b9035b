/* Whether a non-empty array is in non-decreasing order. */

/*@ requires n > 0 && \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures sorted: \result == 1 <==> \forall integer k; 0 <= k < n - 1 ==> a[k] <= a[k+1];
    ensures boolean: \result == 0 || \result == 1;
*/
int is_sorted(const int *a, int n) {
  /*@ loop invariant 1 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i - 1 ==> a[k] <= a[k+1];
      loop assigns i;
      loop variant n - i; */
  for (int i = 1; i < n; i++) {
    if (a[i - 1] > a[i])
      return 0;
  }
  return 1;
}
