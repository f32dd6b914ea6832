/*
 * Work isolation: spool_isolate, and the wait loop of a worker inside an
 * isolation region, which runs only that region's jobs (isolate.md).
 *
 * A region is a number, never reused.  spool_isolate pushes a context
 * (context.h) with a new region on the calling worker; every job made
 * while it holds lies on the deque above its base, or carries the region
 * in its own fields, and so belongs to the region; a worker that runs
 * such a job runs in the region too.  A waiter whose context has a region
 * (worker.c sends its waits here) takes only jobs of exactly that region:
 * its own deque's newest if it is one, and other workers' oldest public
 * jobs when they are of the region.  Broadcasts and installs by other
 * pools' workers are the exceptions: they need this pool's workers, so it
 * takes them and runs them in its region.  Nothing else is taken, so jobs of other regions
 * stay where they are.  It is not counted idle (posters must not count on
 * it for their jobs), and it sleeps as an isolated sleeper, woken by its
 * latch, by any region's publication or by a broadcast (sleep.c).
 */
#include <sched.h>

#include "spool.h"

#include "global.h"
#include "scope.h"
#include "isolate.h"
#include "worker.h"

/* 0 is "no region". */
static atomic_uint_least64_t last_region;

static void isolate_on(spool__worker_t *w, spool_fn fn, void *arg)
{
    /* Relaxed: a unique number is all that is needed. */
    uint64_t r = atomic_fetch_add_explicit(&last_region, 1, memory_order_relaxed) + 1;
    spool__context_t x = {w->ctx.top.scope, r};
    if (!spool__ctx_push(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed), x))
        spool__abort("spool_isolate: out of memory for the worker's context");
    fn(arg);
    spool__ctx_pop(&w->ctx);
}

typedef struct isolate_call {
    spool_fn fn;
    void *arg;
} isolate_call_t;

static void isolate_in_worker(void *arg)
{
    isolate_call_t *c = arg;
    isolate_on(spool__current_worker(), c->fn, c->arg);
}

void spool_isolate(spool_fn fn, void *arg)
{
    if (SPOOL__UNLIKELY(fn == NULL))
        spool__abort("spool_isolate: NULL function");
    spool__worker_t *w = spool__current_worker();
    if (w != NULL) {
        isolate_on(w, fn, arg);
        return;
    }
    spool_pool_t *global = spool__global_pool();
    isolate_call_t call = {fn, arg};
    if (global != NULL && spool__pool_run_root(global, isolate_in_worker, &call) == 0)
        return;
    fn(arg); /* no pool: the caller is the only thread there is */
}

/* ---- the isolated wait ------------------------------------------------------ */

typedef struct region_of {
    const spool__worker_t *victim;
    uint64_t region;
} region_of_t;

/* The thief's test before it takes the job at index t of victim's deque
 * (spool__deque_steal_if): is it of the region? */
static bool keep_if_region(const void *arg, int64_t t)
{
    const region_of_t *r = arg;
    return spool__ctx_lookup(&r->victim->ctx, t).region == r->region;
}

/* w entered x for a job it took (as worker.c's enter_context). */
static bool enter(spool__worker_t *w, spool__context_t x)
{
    return spool__ctx_enter(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            x);
}

/* w's own newest job if it is of region r: by its index's context, or, for
 * a scope's job handed on into another context's entries (X1), by its
 * scope's region; a job that is neither goes back into the slot it left.
 * *entered: as enter. */
static spool__job_t *take_own(spool__worker_t *w, uint64_t r, bool *entered)
{
    spool__deque_t *d = &w->deque;
    if (atomic_load_explicit(&d->bottom, memory_order_relaxed) <=
        atomic_load_explicit(&d->top, memory_order_relaxed))
        return NULL; /* empty: only w pushes */
    spool__job_t *job = spool__worker_pop(w);
    if (job == NULL)
        return NULL;
    spool__context_t x =
        spool__ctx_lookup(&w->ctx, atomic_load_explicit(&d->bottom, memory_order_relaxed));
    if (x.region != r) {
        spool_scope_t *s = spool__scope_of_job(job);
        if (s == NULL || s->region != r) {
            if (!spool__deque_push(d, job))
                spool__abort("internal error: a job could not be put back");
            return NULL;
        }
        x = (spool__context_t){s, r};
    }
    *entered = enter(w, x);
    return job;
}

/* A job of region r for w: its own newest, a broadcast, an install, or one
 * stolen; NULL if none could be had now. */
static spool__job_t *find_in_region(spool__worker_t *w, uint64_t r, unsigned *from,
                                    bool *entered)
{
    *entered = false;
    spool__job_t *job = take_own(w, r, entered);
    if (job != NULL) {
        *from = SPOOL__FROM_OWN;
        return job;
    }
    /* Any broadcast: it needs every worker, and two regions' broadcasts
     * would otherwise wait for each other's waiters. */
    if (spool__deque_take_front(&w->broadcasts, &job) == SPOOL__STEAL_SUCCESS) {
        *from = SPOOL__FROM_BROADCAST;
        return job;
    }
    spool_pool_t *pool = w->pool;
    /* An install by another pool's worker: it needs one of ours, and that
     * worker may hold up our region (it runs in our region here). */
    job = spool__injector_take_if(&pool->injector, spool__install_from_worker, NULL);
    if (job != NULL) {
        *from = SPOOL__FROM_INJECTOR;
        return job;
    }
    unsigned n = pool->num_slots; /* the caller slot's deque too */
    for (int sweep = 0; sweep < 2; sweep++) {
        bool retry = false;
        for (unsigned k = 0; k < n; k++) {
            unsigned v = (w->index + 1 + k) % n;
            if (v == w->index)
                continue;
            region_of_t of = {&pool->workers[v], r};
            int64_t t;
            switch (spool__deque_steal_if(&pool->workers[v].deque, &job, &t, keep_if_region, &of)) {
            case SPOOL__STEAL_SUCCESS:
                w->stolen_from = &pool->workers[v];
                *from = SPOOL__FROM_STOLEN | v << 8;
                *entered = enter(w, spool__ctx_lookup(&pool->workers[v].ctx, t));
                return job;
            case SPOOL__STEAL_RETRY:
                retry = true;
                break;
            case SPOOL__STEAL_EMPTY:
                break;
            }
        }
        if (!retry)
            break;
    }
    return NULL;
}

typedef struct region_check {
    spool__worker_t *w;
    uint64_t region;
} region_check_t;

/* The isolated sleeper's final check, after its count and SleepFence: is a
 * job of its region where it could take it? */
static bool region_has_work(void *arg)
{
    const region_check_t *c = arg;
    spool__worker_t *w = c->w;
    spool_pool_t *pool = w->pool;
    for (unsigned v = 0; v < pool->num_slots; v++) {
        spool__deque_t *d = &pool->workers[v].deque;
        /* Acquire pairs with the owner's release store of split: its
         * context entries for the job at top are visible. */
        int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
        int64_t s = atomic_load_explicit(&d->split, memory_order_acquire);
        if (t < s && spool__ctx_lookup(&pool->workers[v].ctx, t).region == c->region)
            return true;
    }
    int64_t newest = atomic_load_explicit(&w->deque.bottom, memory_order_relaxed) - 1;
    if (newest >= atomic_load_explicit(&w->deque.top, memory_order_relaxed) &&
        spool__ctx_lookup(&w->ctx, newest).region == c->region)
        return true;
    return spool__deque_len(&w->broadcasts) > 0 ||
           spool__injector_has_if(&pool->injector, spool__install_from_worker, NULL);
}

void spool__isolated_wait(spool__worker_t *w, spool__core_latch_t *latch)
{
    uint64_t r = w->ctx.top.region;
    unsigned rounds = 0;
    while (!spool__core_latch_probe(latch)) {
        unsigned from;
        bool entered;
        spool__job_t *job = find_in_region(w, r, &from, &entered);
        if (job != NULL) {
            SPOOL__STAT_INC(w->stats.jobs_executed);
            spool__worker_run(w, job, from, entered);
            rounds = 0;
            continue;
        }
        /* Jobs of other contexts below the region stay on w's deque while
         * it waits here: public, so that workers outside the region can
         * take them (isolate.md, X5). */
        spool__deque_t *d = &w->deque;
        if (d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed))
            spool__worker_publish(w);
        /* As the plain search's rounds: spin, then yield, then sleep. */
        if (rounds < SPOOL__SPIN_ROUNDS) {
            for (unsigned i = 0; i < 1u << rounds; i++)
                spool__cpu_relax();
            rounds++;
        } else if (rounds < SPOOL__ROUNDS_UNTIL_SLEEPY) {
            sched_yield();
            rounds++;
        } else {
            region_check_t check = {w, r};
            spool__sleep_isolated(&w->pool->sleep, w->index, latch, region_has_work, &check);
            rounds = 0;
        }
    }
}
