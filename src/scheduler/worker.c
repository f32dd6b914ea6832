/* A worker: setting it up, publication of its private jobs, and its
 * thread's main loop (see worker.h); its waits are wait.c's. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "scheduler/worker.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "job/abi_v3.h"
#include "spool_inline.h"

_Thread_local spool__worker_t *spool__tls_worker SPOOL__TLS_MODEL;
/* Outside a pool spool_join_inline's fast push must fail: limit is below
 * every index.  Never written: the push fails before any store. */
static struct spool__fork_owner_v4 fork_outside_pool = {.limit = INT64_MIN};
__thread struct spool__fork_owner_v4 *spool__tls_fork_v4 = &fork_outside_pool;
/* The same pointer for programs built against inline ABI 3, whose owner
 * view is ABI 4's (job/abi_v3.h). */
_Static_assert(sizeof(struct spool__fork_owner_v3) == sizeof(struct spool__fork_owner_v4) &&
                   offsetof(struct spool__fork_owner_v3, base) ==
                       offsetof(struct spool__fork_owner_v4, base),
               "fork owner v3");
__thread struct spool__fork_owner_v3 *spool__tls_fork_v3 =
    (struct spool__fork_owner_v3 *)(void *)&fork_outside_pool;

void spool__worker_enter(spool__worker_t *w)
{
    spool__tls_worker = w;
    spool__tls_fork_v4 = spool__deque_owner(&w->deque);
    spool__tls_fork_v3 = (struct spool__fork_owner_v3 *)(void *)spool__tls_fork_v4;
#ifdef SPOOL_STATS
    spool__tls_stats = &w->stats;
#endif
}

void spool__worker_leave(void)
{
    spool__tls_worker = NULL;
    spool__tls_fork_v4 = &fork_outside_pool;
    spool__tls_fork_v3 = (struct spool__fork_owner_v3 *)(void *)&fork_outside_pool;
#ifdef SPOOL_STATS
    spool__tls_stats = NULL;
#endif
}

int spool__worker_init(spool__worker_t *w, spool_pool_t *pool, unsigned index)
{
    int err = spool__ctx_init(&w->ctx);
    if (err != 0)
        return err;
    err = spool__ctx_init(&w->frame_ctx);
    if (err != 0) {
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    err = spool__deque_init(&w->deque);
    if (err != 0) {
        spool__ctx_destroy(&w->frame_ctx);
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    /* Detached FIFO spawns' (spawn.c sets the ops at its first push). */
    err = spool__job_fifo_init(&w->fifo, NULL, pool);
    if (err != 0) {
        spool__deque_destroy(&w->deque);
        spool__ctx_destroy(&w->frame_ctx);
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    err = spool__deque_init(&w->broadcasts);
    if (err != 0) {
        spool__job_fifo_destroy(&w->fifo);
        spool__deque_destroy(&w->deque);
        spool__ctx_destroy(&w->frame_ctx);
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    w->pool = pool;
    w->index = index;
    w->rng = UINT64_C(0x9E3779B97F4A7C15) * (index + 1) | 1;
    /* Rule 4 only where there is someone to share with (in a pool of one
     * thread publishing would only change the order jobs run in). */
    spool__pace_init(&w->pace, pool->num_slots > 1);
    spool__core_latch_init(&w->terminate);
    /* Idle before its thread runs: its first search looks at the dock
     * before it takes anything (wait.c). */
    atomic_init(&w->dock, SPOOL__DOCK_IDLE);
    atomic_init(&w->frames, NULL);
    return 0;
}

void spool__worker_destroy(spool__worker_t *w)
{
    spool__deque_destroy(&w->deque);
    spool__job_fifo_destroy(&w->fifo);
    spool__deque_destroy(&w->broadcasts);
    spool__ctx_destroy(&w->ctx);
    spool__ctx_destroy(&w->frame_ctx);
    spool__frames_destroy(atomic_load_explicit(&w->frames, memory_order_relaxed));
    spool__block_cache_drain(&w->blocks);
    spool__block_cache_drain(&w->task_blocks);
    free(spool__copy_retire(&w->copies)); /* every copy was released: its jobs ran */
    free(w->loops);
}

void spool__worker_publish(spool__worker_t *w)
{
    /* A scope's local spawns (blocks, FIFO tickets) become counted ones
     * before anyone can see them: the release store of split publishes the
     * count and the new execute function with the job. */
    spool__deque_t *d = &w->deque;
    if (spool__deque_demanded(d))
        w->share_quiet = false; /* a thief asks: rule 3 may share again */
    int64_t end = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* A block or ticket is posted as the calls it holds, so that as many
     * sleepers wake as there are calls to run (scope.md). */
    int64_t extra_calls = 0;
    /* Whether a job of a region is among them (for its isolated waiters). */
    bool regional = w->ctx.top.region != 0;
    for (int64_t i = d->owner_split; i < end; i++) {
        spool__job_t *job = spool__deque_private_job(d, i);
        if (spool__job_is_join(job)) {
            spool__deque_set_tag(d, i, 0); /* its context is its position's */
            if (SPOOL__UNLIKELY(i < w->ctx.top_base) && !regional)
                regional = spool__ctx_lookup(&w->ctx, i).region != 0;
            continue;
        }
        /* Its label's region, for an isolated thief's test (wait.c); 0 for
         * a join frame of inline ABI 3, whose context is its position's
         * too (its owner runs it if nobody else does: no isolated sleeper
         * needs the wake-up). */
        uint64_t tag = spool__job_tag(job);
        spool__deque_set_tag(d, i, tag);
        regional |= tag > 1;
        extra_calls += (int64_t)spool__job_published(job) - 1;
    }
    bool was_empty;
    int64_t n = spool__deque_publish(&w->deque, &was_empty);
    if (n <= 0)
        return;
    spool__worker_posted(w, n + extra_calls, was_empty, regional);
}

void spool__worker_posted(spool__worker_t *w, int64_t n, bool was_empty, bool regional)
{
    /* Post-work protocol for internal jobs (no fence needed: sleep.md, S2). */
    spool__sleep_t *sleep = &w->pool->sleep;
    uint64_t c = spool__sleep_load_counters(sleep);
    if (spool__sleep_post_needs_work(c))
        spool__sleep_new_jobs_cold(sleep, c, n > UINT_MAX ? UINT_MAX : (unsigned)n, was_empty);
    if (SPOOL__UNLIKELY(regional)) {
        /* Jobs of a region: an isolated waiter of it may sleep.  PushFence
         * (isolate.md): pairs with the isolated sleeper's SleepFence. */
        spool__fence_seq_cst();
        spool__sleep_wake_isolated(sleep);
    }
}

/* ---- the main loop ------------------------------------------------------ */

void spool__worker_name_thread(const spool_pool_t *pool, unsigned index)
{
#ifdef __linux__
    char name[32];
    snprintf(name, sizeof name, "%s-%u", pool->thread_name, index);
    name[15] = '\0'; /* Linux keeps 15 characters */
    pthread_setname_np(pthread_self(), name);
#else
    (void)pool;
    (void)index;
#endif
}

void *spool__worker_main(void *arg)
{
    spool__worker_t *w = arg;
    spool_pool_t *pool = w->pool;
    spool__worker_enter(w);
    spool__worker_name_thread(pool, w->index);
    if (pool->start_handler != NULL)
        pool->start_handler(pool->handler_ctx, w->index);
    /* Counted idle since the pool's start (sleep.md): it searches first
     * (spool__serve), so that no moment between the handler and the search
     * counts the worker busy (a job's holder that looked then kept its
     * other jobs private).  The search is recorded if a trace runs already
     * (SPOOL_TRACE starts one before the threads): a worker that finds no
     * work still shows its sleeps. */
    spool__serve(w);
    spool__worker_leave(); /* the exit handler runs outside the pool */
    if (pool->exit_handler != NULL)
        pool->exit_handler(pool->handler_ctx, w->index);
    return NULL;
}

