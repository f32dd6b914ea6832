/* Waiting for a pool's workers to be idle or asleep, for tests whose claim
 * holds only when they are (deque.md, "The delay, bounded"; sleep.md). */
#ifndef SPOOL_TEST_POOL_IDLE_H
#define SPOOL_TEST_POOL_IDLE_H

#include <stdbool.h>

#include "scheduler/worker.h"
#include "test_util.h"

/* Waits until the sleep counters count every worker of pool inactive
 * (idle or asleep) or, if asleep, sleeping, polling each millisecond up to
 * deadline_ms.  False if
 * they never were.  The acquire load pairs with the workers' seq-cst
 * updates of the counters: a job installed afterwards reads this count or
 * a later one. */
static inline bool test_wait_pool_counted(spool_pool_t *pool, int deadline_ms, bool asleep)
{
    for (int ms = 0; ms <= deadline_ms; ms++) {
        uint64_t c = atomic_load_explicit(&pool->sleep.counters, memory_order_acquire);
        unsigned n = asleep ? spool__counters_sleeping(c) : spool__counters_inactive(c);
        if (n == pool->num_threads)
            return true;
        test_sleep_ms(1);
    }
    return false;
}

/* Every worker idle or asleep (the inactive count, which a job's holder
 * reads before it keeps jobs private). */
static inline bool test_wait_pool_idle(spool_pool_t *pool, int deadline_ms)
{
    return test_wait_pool_counted(pool, deadline_ms, false);
}

/* Every worker asleep (counted sleeping: blocked, or about to block). */
static inline bool test_wait_pool_asleep(spool_pool_t *pool, int deadline_ms)
{
    return test_wait_pool_counted(pool, deadline_ms, true);
}

#endif
