#include "buffer.h"
#include "stats.h"

/* A function written by a macro, invoked at top level. */
#define DEFINE_GETTER(name, value) int name(void) { return value; }
DEFINE_GETTER(default_value, 5)

/*@ requires \valid(buf + (0 .. CAPACITY - 1));
    assigns buf[0 .. CAPACITY - 1];
    ensures \result == 5; */
int reset_at(int *buf, int i) {
  fill(buf, 5);
  int k = LIMIT(i);
  return buf[k];
}

/*@ requires \valid(buf + (0 .. CAPACITY - 1));
    assigns buf[0 .. CAPACITY - 1];
    ensures \result >= 0; */
int top(int *buf) {
  return peak(reset_at(buf, 3), 0);
}
