/* Waiting for a pool's workers to be idle, for tests whose claim holds only
 * when they are (deque.md, "The delay, bounded"). */
#ifndef SPOOL_TEST_POOL_IDLE_H
#define SPOOL_TEST_POOL_IDLE_H

#include <stdbool.h>

#include "worker.h"
#include "test_util.h"

/* Waits until every worker of pool is idle or asleep (the sleep counters'
 * inactive count, which a job's holder reads before it keeps jobs private),
 * polling each millisecond up to deadline_ms.  False if they never were.
 * The acquire load pairs with the workers' seq-cst updates of the counters:
 * a job installed afterwards reads this count or a later one. */
static inline bool test_wait_pool_idle(spool_pool_t *pool, int deadline_ms)
{
    for (int ms = 0; ms <= deadline_ms; ms++) {
        uint64_t c = atomic_load_explicit(&pool->sleep.counters, memory_order_acquire);
        if (spool__counters_inactive(c) == pool->num_threads)
            return true;
        test_sleep_ms(1);
    }
    return false;
}

#endif
