/* Internal: the rounds of a spinning wait, on top of atomics.h's pause.
 * Never installed. */
#ifndef SPOOL_SPIN_H
#define SPOOL_SPIN_H

#include <sched.h>

#include "platform/atomics.h"

/* The i-th round of a spinning wait that may last: a pause, and every 64th
 * round a yield, so that a thread the spinner just woke, which the kernel
 * often queues on the spinner's CPU, runs within microseconds instead of
 * after the spin.  The model checker's build only pauses (it models no
 * scheduler). */
static inline void spool__spin_round(unsigned long i)
{
#if !defined(SPOOL__MODEL_CHECK)
    if (i % 64 == 63) {
        sched_yield();
        return;
    }
#endif
    (void)i;
    spool__cpu_relax();
}

/* The i-th round of a wait for another thread's few stores: pauses, and
 * yields once it has lasted a thousand of them (that thread lost its CPU
 * between its stores). */
static inline void spool__spin_brief(unsigned long i)
{
    if (i < 1000)
        spool__cpu_relax();
    else
        sched_yield();
}

#endif
