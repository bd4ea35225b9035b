/* Nothing to prove: no annotation, no run-time error possible. */
void nothing(void) {
}
