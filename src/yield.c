/* Yield: a waiting job lets the pool's other jobs run (spool_yield_now,
 * spool_yield_local), and the pending-task hint. */
#include "registry.h"

static spool_yield_t run_one(spool__job_t *job)
{
    if (job == NULL)
        return SPOOL_YIELD_IDLE;
    spool__job_execute(job);
    return SPOOL_YIELD_EXECUTED;
}

spool_yield_t spool_yield_now(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return SPOOL_YIELD_OUTSIDE;
    return run_one(spool__worker_find_work(w));
}

spool_yield_t spool_yield_local(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return SPOOL_YIELD_OUTSIDE;
    spool__job_t *job = spool__worker_take_local(w);
    if (job != NULL)
        SPOOL__STAT_INC(w->stats.jobs_executed);
    return run_one(job);
}

int spool_current_thread_has_pending_tasks(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return -1;
    return spool__deque_len(&w->deque) > 0;
}
