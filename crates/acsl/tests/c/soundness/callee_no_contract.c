/* A callee without a contract may assign anything; a caller's postcondition
   that depends on what it leaves alone is not provable. */
int g;

void set(void) {
  g = 1;
}

/*@ ensures g == 0; */
void f(void) {
  g = 0;
  set();
}
