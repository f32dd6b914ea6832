/* Lending idle workers and parking in a pool: see lend.h and lend.md. */
#include "scheduler/lend.h"

#include <limits.h>

#include "platform/places.h"
#include "scheduler/worker.h"

/* ---- the lend job ------------------------------------------------------------ */

static void lend_execute(spool__job_t *job)
{
    spool__lend_t *l = (spool__lend_t *)job;
    l->fn(l->arg);
}

static void lend_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const spool__lend_t *l = (const spool__lend_t *)job;
    info->fn = spool__fn_bits((void (*)(void))l->fn);
    info->arg = (uint64_t)(uintptr_t)l->arg;
}

/* Never on a deque; runs at its worker's top level, in no context. */
static const spool__job_kind_t kind_lend = {
    .name = "lend",
    .execute = lend_execute,
    .describe = lend_describe,
};
SPOOL__JOB_KIND_ROW(kind_lend);

void spool__lend_init(spool__lend_t *l, void (*fn)(void *arg), void *arg)
{
    l->job.execute = lend_execute;
    l->fn = fn;
    l->arg = arg;
    l->worker = UINT_MAX; /* set by the claim */
}

/* ---- claiming ---------------------------------------------------------------- */

unsigned spool__lend(spool_pool_t *pool, unsigned first, unsigned max, spool__lend_t *recs)
{
    unsigned n = pool->num_threads, claimed = 0;
    if (max == 0 || n == 0)
        return 0;
    spool__worker_t *self = spool__current_worker();
    for (unsigned k = 0; k < n && claimed < max; k++) {
        spool__worker_t *w = &pool->workers[(first + k) % n];
        if (w == self)
            continue;
        if (recs[claimed].worker != w->index)
            recs[claimed].worker = w->index;
        if (spool__dock_claim(&w->dock, &recs[claimed].job))
            claimed++;
    }
    if (claimed == 0)
        return 0;
    /* ClaimFence (lend.md): pairs with the SleepFence of a worker falling
     * asleep at its top level (sleep.md).  Either its final check
     * (posted_work, wait.c) sees its dock claimed, or the counters read
     * below show it sleeping and it is woken here (a worker that took its
     * claim meanwhile is woken for nothing: it looks again and sleeps). */
    spool__fence_seq_cst();
    if (spool__counters_sleeping(spool__sleep_load_counters(&pool->sleep)) != 0)
        for (unsigned k = 0; k < claimed; k++)
            spool__sleep_wake_specific_thread(&pool->sleep, recs[k].worker);
    return claimed;
}

void spool__lend_return(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL || w->index >= w->pool->num_threads ||
        atomic_load_explicit(&w->dock, memory_order_relaxed) != SPOOL__DOCK_BUSY)
        spool__abort("spool__lend_return: not called by a lent worker");
    w->lend_end = 0;
    spool__dock_open(&w->dock);
}

void spool__lend_linger(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL || w->index >= w->pool->num_threads)
        spool__abort("spool__lend_linger: not called by a lent worker");
    w->lend_end = spool__ticks();
}

spool_pool_t *spool__current_pool(void)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL ? w->pool : NULL;
}

unsigned spool__pool_cpus(const spool_pool_t *pool)
{
    if (pool->cpus != NULL)
        return pool->num_cpus;
    unsigned n = spool__places_cpu_count();
    return n > 0 ? n : 1;
}

/* ---- parks ------------------------------------------------------------------- */

int spool__park_init(spool__park_t *p)
{
    spool__worker_t *w = spool__current_worker();
    p->blocking = w == NULL;
    if (p->blocking)
        return spool__lock_latch_init(&p->lock);
    /* cross: the setter may be outside the pool (an outside thread that
     * leads a team of its workers), which must keep the pool alive until
     * its wake-up is done. */
    p->owner = w;
    spool__worker_latch_init(&p->spin, w, true);
    return 0;
}

void spool__park_wait(spool__park_t *p)
{
    if (p->blocking)
        spool__lock_latch_wait(&p->lock, false);
    else
        spool__wait_until(p->owner, &p->spin.core);
}

void spool__park_set(spool__park_t *p)
{
    if (p->blocking)
        spool__lock_latch_set(&p->lock);
    else
        spool__spin_latch_set(&p->spin);
}

void spool__park_destroy(spool__park_t *p)
{
    if (p->blocking)
        spool__lock_latch_destroy(&p->lock);
}
