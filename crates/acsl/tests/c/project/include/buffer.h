#ifndef BUFFER_H
#define BUFFER_H

#include "config.h"

/*@ axiomatic Count {
      logic integer twice(integer n) = 2 * n;
      axiom twice_mono: \forall integer a, b; a <= b ==> twice(a) <= twice(b);
    }
*/

/*@ lemma capacity_positive: CAPACITY > 0;
    lemma twice_capacity: twice(CAPACITY) == 2 * CAPACITY; */

/*@ assigns \nothing;
    ensures 0 <= \result < CAPACITY; */
// Defined in buffer.c; callers rely on this contract only.
int clamp_index(int i);

/*@ requires \valid(buf + (0 .. CAPACITY - 1));
    assigns buf[0 .. CAPACITY - 1];
    ensures \forall integer k; 0 <= k < CAPACITY ==> buf[k] == v; */
void fill(int *buf, int v);

/*@ assigns \nothing;
    ensures \result >= a && \result >= b; */
static inline int imax(int a, int b) { return a > b ? a : b; }

#endif
