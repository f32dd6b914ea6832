/* Yield: a waiting job lets the pool's other jobs run (spool_yield_now,
 * spool_yield_local), and the pending-task hint. */
#include "worker.h"

static spool_yield_t run_one(spool__worker_t *w, spool__job_t *job, unsigned from, bool entered)
{
    if (job == NULL)
        return SPOOL_YIELD_IDLE;
    spool__worker_run(w, job, from, entered);
    return SPOOL_YIELD_EXECUTED;
}

spool_yield_t spool_yield_now(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return SPOOL_YIELD_OUTSIDE;
    unsigned from;
    bool entered;
    spool__job_t *job = spool__worker_find_work(w, &from, &entered);
    return run_one(w, job, from, entered);
}

spool_yield_t spool_yield_local(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return SPOOL_YIELD_OUTSIDE;
    unsigned from;
    bool entered;
    spool__job_t *job = spool__worker_take_local(w, &from, &entered);
    if (job != NULL)
        SPOOL__STAT_INC(w->stats.jobs_executed);
    return run_one(w, job, from, entered);
}

int spool_current_thread_has_pending_tasks(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return -1;
    return spool__deque_len(&w->deque) > 0;
}
