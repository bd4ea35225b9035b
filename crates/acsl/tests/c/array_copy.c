/* Copy n elements from src to a separate array dst. */

/*@ requires n >= 0;
    requires \valid(dst + (0 .. n-1)) && \valid_read(src + (0 .. n-1));
    requires \separated(dst + (0 .. n-1), src + (0 .. n-1));
    assigns dst[0 .. n-1];
    ensures copied: \forall integer k; 0 <= k < n ==> dst[k] == src[k];
*/
void array_copy(int *dst, const int *src, int n) {
  int i = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant \forall integer k; 0 <= k < i ==> dst[k] == src[k];
      loop assigns i, dst[0 .. n-1];
      loop variant n - i; */
  while (i < n) {
    dst[i] = src[i];
    i++;
  }
}
