#include "buffer.h"

int clamp_index(int i) {
  if (i < 0) return 0;
  if (i >= CAPACITY) return CAPACITY - 1;
  return i;
}

void fill(int *buf, int v) {
  /*@ loop invariant 0 <= k <= CAPACITY;
      loop invariant \forall integer j; 0 <= j < k ==> buf[j] == v;
      loop assigns k, buf[0 .. CAPACITY - 1];
      loop variant CAPACITY - k; */
  for (int k = 0; k < CAPACITY; k++) buf[k] = v;
}
