/* Three callees: no contract, a contract without `assigns`, a full contract. */
int g;

void set(void) {
  g = 1;
}

/*@ ensures \true; */
void set_spec(void) {
  g = 1;
}

/*@ assigns g;
    ensures g == 1; */
void reset(void) {
  g = 1;
}

/*@ ensures g == 0; */
void f(void) {
  g = 0;
  set();
}

/*@ ensures g == 0; */
void f2(void) {
  g = 0;
  set_spec();
}

/*@ ensures g == 1; */
void f3(void) {
  g = 0;
  reset();
}
