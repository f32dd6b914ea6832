/*
 * Work isolation: spool_isolate (isolate.md).  The wait of a worker inside
 * a region, which takes only that region's jobs, is the wait layer's with
 * the region as its filter (wait.c).
 *
 * A region is a number, never reused.  spool_isolate pushes a context
 * (context.h) with a new region on the calling worker; a job made while it
 * holds belongs to the region: a join frame by its position on the deque
 * (above the entry's base), a heap job by the label it carries (job.h).
 * A worker that runs such a job runs in the region too.  A waiter whose
 * context has a region takes only that region's jobs, and the exceptions
 * (wait.md); it is not counted idle, and sleeps as an isolated sleeper,
 * woken by its latch, by a publication of a region's jobs or by a
 * broadcast (sleep.c).
 */
#include "spool.h"

#include "pool/global.h"
#include "scope/scope.h"
#include "scheduler/worker.h"

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
    spool__worker_ctx_pop(w);
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
