/* A worker: searching and stealing, the wait loop that runs jobs until a
 * latch is set, publication of its private jobs, and its thread's main
 * loop (see worker.h). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "worker.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "isolate.h"
#include "spawn.h"
#include "spool_inline.h"

_Thread_local spool__worker_t *spool__tls_worker SPOOL__TLS_MODEL;
/* Outside a pool spool_join_inline's fast push must fail: limit is below
 * every index.  Never written: the push fails before any store. */
static struct spool__fork_owner_v3 fork_outside_pool = {.limit = INT64_MIN};
__thread struct spool__fork_owner_v3 *spool__tls_fork_v3 = &fork_outside_pool;

void spool__worker_enter(spool__worker_t *w)
{
    spool__tls_worker = w;
    spool__tls_fork_v3 = spool__deque_owner(&w->deque);
}

void spool__worker_leave(void)
{
    spool__tls_worker = NULL;
    spool__tls_fork_v3 = &fork_outside_pool;
}

int spool__worker_init(spool__worker_t *w, spool_pool_t *pool, unsigned index)
{
    int err = spool__ctx_init(&w->ctx);
    if (err != 0)
        return err;
    err = spool__deque_init(&w->deque);
    if (err != 0) {
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    err = spool__job_fifo_init(&w->fifo, &spool__spawn_fifo_ops, pool);
    if (err != 0) {
        spool__deque_destroy(&w->deque);
        spool__ctx_destroy(&w->ctx);
        return err;
    }
    err = spool__deque_init(&w->broadcasts);
    if (err != 0) {
        spool__job_fifo_destroy(&w->fifo);
        spool__deque_destroy(&w->deque);
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
    return 0;
}

void spool__worker_destroy(spool__worker_t *w)
{
    spool__deque_destroy(&w->deque);
    spool__job_fifo_destroy(&w->fifo);
    spool__deque_destroy(&w->broadcasts);
    spool__ctx_destroy(&w->ctx);
    spool__block_cache_drain(&w->blocks);
    spool__block_cache_drain(&w->task_blocks);
    free(spool__copy_retire(&w->copies)); /* every copy was released: its jobs ran */
}

/* ---- finding work ------------------------------------------------------ */

static uint64_t next_random(spool__worker_t *w)
{
    uint64_t x = w->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->rng = x;
    return x;
}

/* w took a job whose context is x (a stolen one, one of its own from below
 * its current context, an injected one): from here until the job returns,
 * w runs in x.  True if w entered a new context, which the caller leaves
 * (spool__ctx_pop) once the job has returned. */
static SPOOL__NOINLINE bool enter_context(spool__worker_t *w, spool__context_t x)
{
    return spool__ctx_enter(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            x);
}

/* Steal from the others, starting at a random victim and sweeping all;
 * another sweep if any steal lost a race.  *entered: as enter_context. */
static spool__job_t *steal(spool__worker_t *w, unsigned *from_victim, bool *entered)
{
    spool_pool_t *pool = w->pool;
    unsigned n = pool->num_slots; /* the caller slot's deque too */
    if (n <= 1)
        return NULL;
    unsigned start = (unsigned)(next_random(w) % n);
    for (;;) {
        bool retry = false;
        for (unsigned i = 0; i < n; i++) {
            unsigned victim = start + i < n ? start + i : start + i - n;
            if (victim == w->index)
                continue;
            spool__job_t *job;
            int64_t t;
            spool__deque_t *d = &pool->workers[victim].deque;
            spool__demand_before(&w->demand, victim, d);
            switch (spool__deque_steal_at(d, &job, &t)) {
            case SPOOL__STEAL_SUCCESS:
                SPOOL__STAT_INC(w->stats.steals);
                spool__demand_stolen(&w->demand, victim);
                w->stolen_from = &pool->workers[victim];
                *from_victim = victim;
                /* The job's context, which its owner noted for index t. */
                *entered = enter_context(w, spool__ctx_lookup(&pool->workers[victim].ctx, t));
                return job;
            case SPOOL__STEAL_RETRY:
                SPOOL__STAT_INC(w->stats.failed_steals);
                retry = true;
                break;
            case SPOOL__STEAL_EMPTY:
                SPOOL__STAT_INC(w->stats.failed_steals);
                break;
            }
        }
        if (!retry)
            return NULL;
    }
}

/* Static and inlined into the wait loop, which runs them once per job;
 * yield.c calls the exported wrappers below.  *from says where the job came
 * from (SPOOL__FROM_*, the victim in bits 8 up), for the timeline; the plain
 * loop's *from is dead and compiled away. */
static inline spool__job_t *take_local(spool__worker_t *w, unsigned *from, bool *entered)
{
    spool__job_t *job = spool__worker_pop(w);
    *from = SPOOL__FROM_OWN;
    /* One of w's own jobs from below its current context (the popped
     * index is bottom now): run it in its own. */
    if (job != NULL) {
        int64_t i = atomic_load_explicit(&w->deque.bottom, memory_order_relaxed);
        if (SPOOL__UNLIKELY(i < w->ctx.top_base))
            *entered = enter_context(w, spool__ctx_lookup(&w->ctx, i));
    }
    /* Broadcasts run once the own deque is empty, before stealing.  Only w
     * takes from its queue, so the take never loses a race. */
    if (job == NULL) {
        *from = SPOOL__FROM_BROADCAST;
        if (spool__deque_take_front(&w->broadcasts, &job) != SPOOL__STEAL_SUCCESS)
            job = NULL;
    }
    return job;
}

/* Finds a job as take_local, then stealing, then in the injector.  *entered:
 * w entered the job's context (enter_context), to leave once it returned. */
static inline spool__job_t *find_work(spool__worker_t *w, unsigned *from, bool *entered)
{
    *entered = false;
    spool__job_t *job = take_local(w, from, entered);
    if (job == NULL) {
        unsigned victim = 0;
        job = steal(w, &victim, entered);
        *from = SPOOL__FROM_STOLEN | victim << 8;
    }
    if (job == NULL) {
        job = spool__injector_pop(&w->pool->injector);
        *from = SPOOL__FROM_INJECTOR;
        /* Work from outside runs in no scope and no region (a job that has
         * one says so itself). */
        if (job != NULL)
            *entered = enter_context(w, (spool__context_t){NULL, 0});
    }
    if (job != NULL)
        SPOOL__STAT_INC(w->stats.jobs_executed);
    return job;
}

spool__job_t *spool__worker_take_local(spool__worker_t *w, unsigned *from, bool *entered)
{
    *entered = false;
    return take_local(w, from, entered);
}

spool__job_t *spool__worker_find_work(spool__worker_t *w, unsigned *from, bool *entered)
{
    return find_work(w, from, entered);
}

/* After a search found a job: are jobs left that a sleeper could take (the
 * injector's, or public ones on any other worker's deque)?  Hints, read
 * with relaxed loads: no wake-up that the protocol promises rests on them
 * (sleep.md, "Wake-ups on work found").  Two loads per worker: a search
 * ends this way once per stretch of idleness, not per job. */
static bool jobs_left(spool__worker_t *w)
{
    spool_pool_t *pool = w->pool;
    if (spool__injector_len_hint(&pool->injector) > 0)
        return true;
    for (unsigned i = 0; i < pool->num_slots; i++)
        if (i != w->index && spool__deque_has_public(&pool->workers[i].deque))
            return true;
    return false;
}

/* Searches until a job turns up (returned, *from says where from) or latch
 * is set (NULL).  ring, if not NULL, records the search and any sleep.
 * counted: the worker is counted idle already (its first search). */
static spool__job_t *search(spool__worker_t *w, spool__core_latch_t *latch,
                            spool__trace_ring_t *ring, size_t capacity, unsigned *from,
                            bool *entered, bool counted)
{
    spool__sleep_t *sleep = &w->pool->sleep;
    uint64_t t0 = ring != NULL ? spool__trace_now() : 0;
    spool__idle_state_t idle;
    spool__sleep_start_looking(sleep, w->index, &idle, counted);
    idle.ring = ring;
    idle.ring_capacity = capacity;
    spool__job_t *job;
    for (;;) {
        /* A set latch: whatever the caller did before it waited is work
         * found. */
        if (spool__core_latch_probe(latch)) {
            job = NULL;
            break;
        }
        job = find_work(w, from, entered);
        if (job != NULL)
            break;
        spool__sleep_no_work_found(sleep, &idle, latch, &w->pool->injector, &w->broadcasts);
    }
    spool__sleep_work_found(sleep, job != NULL && jobs_left(w));
    if (ring != NULL)
        spool__trace_put(ring, capacity, t0, spool__trace_now(), 0, 0,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_SEARCH, 0, 0, ring->depth));
    return job;
}

#if SPOOL__TRACE_ENABLED
/* Runs job, recorded in ring with where it came from (and whether it was a
 * scope's job dropped because the scope was cancelled). */
static void run_traced(spool__worker_t *w, spool__trace_ring_t *ring, size_t capacity,
                       spool__job_t *job, unsigned from)
{
    /* A FIFO's ticket runs its FIFO's front call: take that one now, so
     * that the record names the call that really runs. */
    spool__fifo_job_t taken;
    job = spool__job_fifo_resolve(job, &taken);
    spool__job_info_t info;
    spool__trace_describe(job, &info);
    unsigned depth = ring->depth++;
    unsigned saved = w->drop_level;
    w->drop_level = 0;
    uint64_t t0 = spool__trace_now();
    spool__job_execute(job);
    uint64_t t1 = spool__trace_now();
    ring->depth = depth;
    unsigned kind = w->drop_level == depth + 1 ? SPOOL__FROM_DROPPED : 0;
    w->drop_level = saved;
    spool__trace_put(ring, capacity, t0, t1, info.fn, info.arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, (from & 15u) | kind, from >> 8, depth));
}

#endif

void spool__worker_run(spool__worker_t *w, spool__job_t *job, unsigned from, bool entered)
{
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&w->pool->trace);
    if (t != NULL)
        run_traced(w, &t->rings[w->index], t->capacity, job, from);
    else
        spool__job_execute(job);
#else
    (void)from;
    spool__job_execute(job);
#endif
    if (entered)
        spool__ctx_pop(&w->ctx);
}

#if SPOOL__TRACE_ENABLED
/* The wait loop while trace t records: as wait_plain, each job and search
 * recorded.  True once latch is set; false when t is no longer the pool's
 * trace (then the caller picks the loop again). */
static bool wait_traced(spool__worker_t *w, spool__core_latch_t *latch, spool__trace_t *t)
{
    spool__trace_state_t *state = &w->pool->trace;
    spool__trace_ring_t *ring = &t->rings[w->index];
    while (!spool__core_latch_probe(latch)) {
        if (spool__trace_current(state) != t)
            return false;
        unsigned from;
        bool entered;
        spool__job_t *job = find_work(w, &from, &entered);
        if (job == NULL) {
            job = search(w, latch, ring, t->capacity, &from, &entered, false);
            if (job == NULL)
                return true;
        }
        run_traced(w, ring, t->capacity, job, from);
        if (entered)
            spool__ctx_pop(&w->ctx);
    }
    return true;
}
#endif

/* The wait loop with no trace: no cost per job for the timeline.  True once
 * latch is set; false if a trace started (noticed when the worker runs out
 * of work: a busy worker joins the trace at its next wait or search). */
static bool wait_plain(spool__worker_t *w, spool__core_latch_t *latch)
{
    while (!spool__core_latch_probe(latch)) {
        /* While work keeps coming (own, stolen or injected) the worker stays
         * active and leaves the shared counters alone: touching them per job
         * made two workers fight over their cache line. */
        /* Two words for where a job came from: the first stays local to the
         * inlined find_work, so its stores are dead and compiled away. */
        unsigned unused, from;
        bool entered;
        spool__job_t *job = find_work(w, &unused, &entered);
        if (job == NULL) {
            job = search(w, latch, NULL, 0, &from, &entered, false);
            if (job == NULL)
                return true;
#if SPOOL__TRACE_ENABLED
            spool__trace_t *t = spool__trace_current(&w->pool->trace);
            if (t != NULL) {
                spool__worker_run(w, job, from, entered);
                return false;
            }
#endif
        }
        spool__job_execute(job);
        if (SPOOL__UNLIKELY(entered))
            spool__ctx_pop(&w->ctx);
    }
    return true;
}

/* The wait loop, untraced or traced as the pool's trace comes and goes; t
 * is the trace the caller read. */
static inline void wait_loop(spool__worker_t *w, spool__core_latch_t *latch, spool__trace_t *t)
{
#if SPOOL__TRACE_ENABLED
    while (!(t == NULL ? wait_plain(w, latch) : wait_traced(w, latch, t)))
        t = spool__trace_current(&w->pool->trace);
#else
    (void)t;
    wait_plain(w, latch);
#endif
}

void spool__worker_wait_until_cold(spool__worker_t *w, spool__core_latch_t *latch)
{
    if (SPOOL__UNLIKELY(w->ctx.top.region != 0)) {
        spool__isolated_wait(w, latch);
        return;
    }
#if SPOOL__TRACE_ENABLED
    wait_loop(w, latch, spool__trace_current(&w->pool->trace));
#else
    wait_loop(w, latch, NULL);
#endif
}

#if SPOOL__TRACE_ENABLED
/* Out of line, so that the untraced wait does not pay this one's register
 * saves. */
static SPOOL__NOINLINE void wait_recorded_traced(spool__worker_t *w, spool__core_latch_t *latch,
                                                 spool__trace_t *t, void (*fn)(void *),
                                                 void *arg)
{
    spool__trace_ring_t *ring = &t->rings[w->index];
    unsigned depth = ring->depth++;
    uint64_t t0 = spool__trace_now();
    spool__worker_wait_until_cold(w, latch);
    ring->depth = depth;
    spool__job_info_t info;
    spool__trace_describe_call(fn, arg, &info);
    spool__trace_put(ring, t->capacity, t0, spool__trace_now(), info.fn, info.arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_WAIT, 0, 0, depth));
}
#endif

void spool__worker_wait_recorded_cold(spool__worker_t *w, spool__core_latch_t *latch,
                                      void (*fn)(void *), void *arg)
{
    if (SPOOL__UNLIKELY(w->ctx.top.region != 0)) {
        spool__isolated_wait(w, latch);
        return;
    }
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&w->pool->trace);
    if (t != NULL) {
        wait_recorded_traced(w, latch, t, fn, arg);
        return;
    }
#else
    (void)fn;
    (void)arg;
#endif
    wait_loop(w, latch, NULL); /* the untraced loop, with no second look */
}

void spool__worker_publish(spool__worker_t *w)
{
    /* A scope's local spawns (blocks, FIFO tickets) become counted ones
     * before anyone can see them: the release store of split publishes the
     * count and the new execute function with the job. */
    spool__deque_t *d = &w->deque;
    int64_t end = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* A block or ticket is posted as the calls it holds, so that as many
     * sleepers wake as there are calls to run (scope.md). */
    int64_t extra_calls = 0;
    for (int64_t i = d->owner_split; i < end; i++)
        extra_calls += (int64_t)spool__job_published(spool__deque_private_job(d, i)) - 1;
    bool was_empty;
    int64_t n = spool__deque_publish(&w->deque, &was_empty);
    if (n <= 0)
        return;
    n += extra_calls;
    /* Post-work protocol for internal jobs (no fence needed: sleep.md). */
    spool__sleep_t *sleep = &w->pool->sleep;
    uint64_t c = spool__sleep_load_counters(sleep);
    if (spool__sleep_post_needs_work(c))
        spool__sleep_new_jobs_cold(sleep, c, n > UINT_MAX ? UINT_MAX : (unsigned)n, was_empty);
    if (SPOOL__UNLIKELY(w->ctx.top.region != 0)) {
        /* Jobs of a region: an isolated waiter of it may sleep.  PushFence
         * (isolate.md): pairs with the isolated sleeper's SleepFence. */
        spool__fence_seq_cst();
        spool__sleep_wake_isolated(sleep);
    }
}

/* ---- the main loop ------------------------------------------------------ */

void *spool__worker_main(void *arg)
{
    spool__worker_t *w = arg;
    spool_pool_t *pool = w->pool;
    spool__worker_enter(w);
#ifdef __linux__
    char name[32];
    snprintf(name, sizeof name, "%s-%u", pool->thread_name, w->index);
    name[15] = '\0'; /* Linux keeps 15 characters */
    pthread_setname_np(pthread_self(), name);
#endif
    if (pool->start_handler != NULL)
        pool->start_handler(pool->handler_ctx, w->index);
    /* Counted idle since the pool's start (sleep.md): search first, so that
     * no moment between the handler and the search counts the worker busy
     * (a job's holder that looked then kept its other jobs private).  The
     * search is recorded if a trace runs already (SPOOL_TRACE starts one
     * before the threads): a worker that finds no work still shows its
     * sleeps. */
    spool__trace_ring_t *ring = NULL;
    size_t capacity = 0;
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&pool->trace);
    if (t != NULL) {
        ring = &t->rings[w->index];
        capacity = t->capacity;
    }
#endif
    unsigned from;
    bool entered;
    spool__job_t *job = search(w, &w->terminate, ring, capacity, &from, &entered, true);
    if (job != NULL)
        spool__worker_run(w, job, from, entered);
    spool__worker_wait_until(w, &w->terminate);
    spool__worker_leave(); /* the exit handler runs outside the pool */
    if (pool->exit_handler != NULL)
        pool->exit_handler(pool->handler_ctx, w->index);
    return NULL;
}

