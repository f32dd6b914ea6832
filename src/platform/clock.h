/* Internal: the cycle counter, where there is one, and a cheap clock. */
#ifndef SPOOL_CLOCK_H
#define SPOOL_CLOCK_H

#include <stdint.h>

#include "platform/atomics.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <x86intrin.h>
#define SPOOL__HAVE_TSC 1
#endif

/* A cheap clock for a pace, not a time of day (loop.c): the TSC where
 * there is one (no system call; its rate is fixed but not known here),
 * else CLOCK_MONOTONIC in ns.  Differences only, on one thread. */
static inline uint64_t spool__ticks(void)
{
#ifdef SPOOL__HAVE_TSC
    return __rdtsc();
#else
    return spool__now_ns();
#endif
}

#endif
