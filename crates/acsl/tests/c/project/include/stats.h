#ifndef STATS_H
#define STATS_H

/*@ requires a >= 0 && b >= 0;
    assigns \nothing;
    ensures \result >= a; */
int peak(int a, int b);

#endif
