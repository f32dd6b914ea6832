/* Yield: a waiting job lets the pool's other jobs run (spool_yield_now,
 * spool_yield_local): one take with the filter a wait here would have
 * (wait.h), so that a yield inside an isolation region takes only what a
 * wait there may take; and the pending-task hint. */
#include "scheduler/worker.h"

spool_yield_t spool_yield_now(void)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL ? spool__yield(w, false) : SPOOL_YIELD_OUTSIDE;
}

spool_yield_t spool_yield_local(void)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL ? spool__yield(w, true) : SPOOL_YIELD_OUTSIDE;
}

int spool_current_thread_has_pending_tasks(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL)
        return -1;
    return spool__deque_len(&w->deque) > 0 || spool__worker_frames_pending(w);
}
