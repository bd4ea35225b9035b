/* Contradictory preconditions: the postcondition is false and yet provable. */
/*@ requires x > 0 && x < 0;
    ensures \result == 1; */
int f(int x) {
  return 0;
}
