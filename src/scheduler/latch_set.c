/* The latch operation that needs its owner's worker (worker.h declares
 * it): a count latch's cold wait runs the wait loop. */
#include "sleep/latch.h"

#include "scheduler/worker.h"

void spool__count_latch_wait_cold(spool__count_latch_t *l, spool__worker_t *owner)
{
    spool__count_latch_set(l);
    if (l->blocking)
        spool__lock_latch_wait(&l->lock, true);
    else
        /* Not a recorded wait: the jobs run meanwhile nest in the caller's
         * span anyway, and a scope's end should not pay the recorded wait's
         * call (trace.md, "Costs"). */
        spool__wait_until(owner, &l->spin.core);
}
