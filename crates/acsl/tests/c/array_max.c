/* Position of a largest element of a non-empty array. */

/*@ requires n > 0 && \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures range: 0 <= \result < n;
    ensures largest: \forall integer k; 0 <= k < n ==> a[k] <= a[\result];
*/
int array_max(const int *a, int n) {
  int best = 0;
  /*@ loop invariant 1 <= i <= n;
      loop invariant 0 <= best < i;
      loop invariant \forall integer k; 0 <= k < i ==> a[k] <= a[best];
      loop assigns i, best;
      loop variant n - i; */
  for (int i = 1; i < n; i++) {
    if (a[i] > a[best])
      best = i;
  }
  return best;
}
