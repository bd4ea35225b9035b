/* Valid C, but the contract names a variable that does not exist. */

/*@ ensures \result == y; */
int identity(int x) {
  return x;
}
