/* clock.h: the monotonic clock, the one the suite measures waits and timeouts with. */
#ifndef MC_CLOCK_H
#define MC_CLOCK_H

#include <time.h>

/* Milliseconds of CLOCK_MONOTONIC (from an arbitrary start). */
long long mc_clock_ms(void);

/* Milliseconds of CLOCK_MONOTONIC since *since (taken with clock_gettime). */
long mc_ms_since(const struct timespec *since);

#endif
