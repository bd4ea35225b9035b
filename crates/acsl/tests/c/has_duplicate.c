/* Whether two positions of an array hold the same value (nested loops). */

/*@ requires n >= 0 && \valid_read(a + (0 .. n-1));
    assigns \nothing;
    ensures dup: \result == 1 ==> \exists integer p, q; 0 <= p < q < n && a[p] == a[q];
    ensures distinct: \result == 0 ==> \forall integer p, q; 0 <= p < q < n ==> a[p] != a[q];
    ensures boolean: \result == 0 || \result == 1;
*/
int has_duplicate(const int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer p, q; 0 <= p < i && p < q < n ==> a[p] != a[q];
      loop assigns i;
      loop variant n - i; */
  for (int i = 0; i < n; i++) {
    /*@ loop invariant i + 1 <= j <= n;
        loop invariant \forall integer q; i < q < j ==> a[i] != a[q];
        loop assigns j;
        loop variant n - j; */
    for (int j = i + 1; j < n; j++) {
      if (a[i] == a[j])
        return 1;
    }
  }
  return 0;
}
