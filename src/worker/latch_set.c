/* The latch operations that need their owner's worker and pool (latch.h
 * declares them): a spin latch's set wakes its owner through the owner's
 * pool, and a count latch's cold wait runs the wait loop. */
#include "sleep/latch.h"

#include "worker/worker.h"

void spool__spin_latch_set(spool__spin_latch_t *l)
{
    /* Copy what we need first: once set, the owner may return and free l. */
    spool_pool_t *pool = l->owner->pool;
    unsigned target = l->owner->index;
    if (l->cross) {
        /* The owner's pool may also be destroyed once it returns: hold it. */
        spool__pool_ref(pool);
        if (spool__core_latch_set(&l->core))
            spool__sleep_notify_worker_latch_is_set(&pool->sleep, target);
        spool__pool_unref(pool);
    } else if (spool__core_latch_set(&l->core)) {
        spool__sleep_notify_worker_latch_is_set(&pool->sleep, target);
    }
}

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
