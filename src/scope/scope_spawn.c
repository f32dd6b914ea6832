/* Scopes: spawns that are counted when made (from another thread than the
 * scope's worker, into a FIFO or in-place scope, or from a job its end
 * runs), the FIFO scopes' FIFOs, and what a timeline says of a scope's
 * jobs.  The local spawns (blocks) are scope.c's. */
#include <errno.h>
#include <stdlib.h>

#include "scope/scope.h"
#include "platform/test_hooks.h"

#include "scheduler/worker.h"

static void scope_job_execute(spool__job_t *base)
{
    spool__heap_job_t *job = (spool__heap_job_t *)base;
    spool_scope_fn fn = (spool_scope_fn)job->job.fn;
    void *arg = job->job.arg;
    spool_scope_t *scope = job->job.ctx;
    spool__worker_t *w = spool__current_worker();
    /* Recycle the block before running: fn's own spawns can reuse it. */
    spool__job_free(&scope->pool->job_pool, &w->jobs, job);
    spool__scope_call(w, scope, fn, arg);
    spool__count_latch_set(&scope->latch);
}

/* A scope's job: its scope, and the region the scope was made in (the
 * waiter of its end is there). */
static spool__context_t scope_job_label(const spool__job_t *job)
{
    spool_scope_t *scope = ((const spool__heap_job_t *)job)->job.ctx;
    return (spool__context_t){scope, scope->region};
}

/* A spawn counted when made (scope.h): one call, in a heap job. */
static const spool__job_kind_t kind_scope_spawn = {.name = "scope spawn",
                                                   .execute = scope_job_execute,
                                                   .label = scope_job_label,
                                                   .describe = spool__describe_heap_job};
SPOOL__JOB_KIND_ROW(kind_scope_spawn);

/* A FIFO scope's FIFO's calls (job_fifo.h); the context is the scope. */
static void scope_fifo_run(void *ctx, spool__fifo_call_t call)
{
    spool_scope_t *scope = ctx;
    spool__scope_call(spool__current_worker(), scope, (spool_scope_fn)call.fn, call.arg);
    spool__count_latch_set(&scope->latch);
}

/* A local reference's call: run by the scope's worker, which alone touches
 * local. */
static void scope_fifo_run_local(void *ctx, spool__fifo_call_t call)
{
    spool_scope_t *scope = ctx;
    scope->local--;
    spool__scope_call(scope->local_worker, scope, (spool_scope_fn)call.fn, call.arg);
}

static void scope_fifo_count_local(void *ctx, size_t n)
{
    spool__scope_count_published(ctx, n);
}

/* A counted reference's call, its count dropped later with others'
 * (scope_fifo_counted_done). */
static void scope_fifo_run_uncounted(void *ctx, spool__fifo_call_t call)
{
    spool__scope_call(spool__current_worker(), ctx, (spool_scope_fn)call.fn, call.arg);
}

static void scope_fifo_counted_done(void *ctx, size_t n)
{
    spool_scope_t *scope = ctx;
    spool__count_latch_set_n(&scope->latch, n);
}

static spool__context_t scope_fifo_label(void *ctx)
{
    spool_scope_t *scope = ctx;
    return (spool__context_t){scope, scope->region};
}

static const spool__fifo_ops_t scope_fifo_ops = {
    .label = scope_fifo_label,
    .run = scope_fifo_run,
    .run_local = scope_fifo_run_local,
    .count_local = scope_fifo_count_local,
    .run_uncounted = scope_fifo_run_uncounted,
    .counted_done = scope_fifo_counted_done,
};

/* Worker w's FIFO in scope s, made on first use.  Only w touches s->fifos[w]
 * before the scope completes, so no synchronisation is needed. */
static spool__job_fifo_t *scope_fifo_of(spool_scope_t *s, spool__worker_t *w)
{
    spool__job_fifo_t *f = s->fifos[w->index];
    if (f == NULL) {
        if (spool__test_spawn_alloc_fails())
            return NULL;
        f = spool__job_fifo_new(&scope_fifo_ops, s);
        s->fifos[w->index] = f;
    }
    return f;
}

/* A spawn that counts: by another thread than the scope's worker, into a
 * FIFO or in-place scope, or from a job the scope's end runs. */
int spool__scope_spawn_counted(spool_scope_t *scope, spool__worker_t *w, spool_scope_fn fn,
                               void *arg)
{
    spool_pool_t *pool = scope->pool;
    if (pool == NULL) {
        spool__scope_call(w, scope, fn, arg); /* no pool: at once, here */
        return 0;
    }
    spool__job_cache_t *cache = spool__job_cache_of(pool, w);
    spool__heap_job_t *job = NULL;
    spool__job_fifo_t *f = NULL;
    if (cache != NULL && scope->fifo) {
        f = scope_fifo_of(scope, w); /* a call on it: no job block */
        if (f == NULL)
            return spool__scope_run_at_spawn(scope, w, fn, arg);
    } else {
        job = spool__job_alloc(&pool->job_pool, cache);
        if (job == NULL)
            return spool__scope_run_at_spawn(scope, w, fn, arg);
        job->job.fn = (void (*)(void))fn;
        job->job.arg = arg;
        job->job.ctx = scope;
        job->job.base.execute = scope_job_execute;
    }
    /* The spawner (the body, or a job of this scope) holds a count, so the
     * latch cannot be set between here and the push. */
    spool__count_latch_increment(&scope->latch);
    int err;
    if (f != NULL)
        err = spool__worker_push_fifo(w, f, (spool__fifo_fn_t)fn, arg, false);
    else if (cache == NULL)
        err = spool__pool_inject(pool, &job->job.base, NULL);
    else
        err = spool__worker_push(w, &job->job.base) ? 0 : ENOMEM;
    if (err != 0) {
        if (job != NULL)
            spool__job_free(&pool->job_pool, cache, job);
        /* The spawner's own count keeps the scope open across the set. */
        spool__count_latch_set(&scope->latch);
        return spool__scope_run_at_spawn(scope, w, fn, arg);
    }
    if (cache != NULL && scope->publish_spawns)
        spool__worker_publish(w);
    return 0;
}

/* A FIFO spawn by the scope's own worker w while the scope takes local
 * spawns: a local reference, counted only if its ticket is published.  Out
 * of line, so that spool_scope_spawn's block path saves no register. */
int spool__scope_spawn_local_fifo(spool_scope_t *scope, spool__worker_t *w, spool_scope_fn fn,
                                  void *arg)
{
    spool__job_fifo_t *f = scope_fifo_of(scope, w);
    if (SPOOL__UNLIKELY(f == NULL))
        return spool__scope_run_at_spawn(scope, w, fn, arg);
    scope->local++; /* before the push: a publication by it counts this one */
    int err = spool__worker_push_fifo(w, f, (spool__fifo_fn_t)fn, arg, true);
    if (SPOOL__UNLIKELY(err != 0)) {
        scope->local--;
        return spool__scope_run_at_spawn(scope, w, fn, arg);
    }
    return 0;
}

/* No memory for the job: the serial elision, a valid schedule since a
 * scope's jobs never wait for one another to start.  Counted, and recorded
 * on the timeline as a job of its own (SPOOL__FROM_AT_SPAWN). */
int spool__scope_run_at_spawn(spool_scope_t *scope, spool__worker_t *w, spool_scope_fn fn,
                              void *arg)
{
    if (w == NULL || w->pool != scope->pool) { /* counted by the pool's workers only */
        spool__scope_call(w, scope, fn, arg);
        return 0;
    }
    atomic_store_explicit(&w->jobs_run_at_spawn,
                          atomic_load_explicit(&w->jobs_run_at_spawn, memory_order_relaxed) + 1,
                          memory_order_relaxed);
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&w->pool->trace);
    if (t != NULL) {
        spool__trace_ring_t *ring = &t->rings[w->index];
        unsigned depth = ring->depth++;
        uint64_t t0 = spool__trace_now();
        spool__scope_call(w, scope, fn, arg);
        uint64_t t1 = spool__trace_now();
        ring->depth = depth;
        spool__trace_put(ring, t->capacity, t0, t1, spool__fn_bits((void (*)(void))fn),
                         (uint64_t)(uintptr_t)arg,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, SPOOL__FROM_AT_SPAWN, 0, depth));
        return 0;
    }
#endif
    spool__scope_call(w, scope, fn, arg);
    return 0;
}

