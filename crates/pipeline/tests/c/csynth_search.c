/* Index of the first element equal to x, or -1 (crates/acsl/tests/c/linear_search.c without its ACSL). */

int linear_search(const int *a, int n, int x) {
  for (int i = 0; i < n; i++) {
    if (a[i] == x)
      return i;
  }
  return -1;
}
