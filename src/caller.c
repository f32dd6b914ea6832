/* The caller slot: see caller.h and caller.md. */
#include "caller.h"

#include "worker.h"

/* How deep the slot's context stack is between holders: its own entry. */
#define BASE_DEPTH 1u

struct spool__worker *spool__caller_enter(spool_pool_t *pool, spool__context_t made_in)
{
    if (pool->num_slots == pool->num_threads) /* the slot is not lent */
        return NULL;
    if (!spool__caller_claim(&pool->caller_taken))
        return NULL;
    /* Counted as an install is: destroy waits until the holder leaves. */
    if (spool__pool_add_work_external(pool) != 0) {
        spool__caller_release(&pool->caller_taken);
        return NULL;
    }
    spool__worker_t *w = &pool->workers[pool->num_threads];
    spool__worker_enter(w);
    w->caller_entered = spool__ctx_enter(
        &w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed), made_in);
    return w;
}

void spool__caller_leave(spool__worker_t *w)
{
    spool_pool_t *pool = w->pool;
    /* Jobs left on the deque are the holder's to run: a thief may still
     * take public ones meanwhile, and none may stay private once the
     * holder has gone. */
    spool__drain_local(w);
    if (w->caller_entered)
        spool__worker_ctx_pop(w);
    if (atomic_load_explicit(&w->ctx.depth, memory_order_relaxed) != BASE_DEPTH)
        spool__abort("internal error: the caller slot's contexts are unbalanced");
    spool__worker_leave();
    spool__caller_release(&pool->caller_taken);
    spool__pool_work_done(pool); /* last: it may let destroy free the pool */
}

bool spool__caller_run(spool_pool_t *pool, spool_fn fn, void *arg, spool__context_t made_in)
{
    spool__worker_t *w = spool__caller_enter(pool, made_in);
    if (w == NULL)
        return false;
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&pool->trace);
    if (t != NULL) {
        /* The call itself is a job on the caller's row of the timeline. */
        spool__trace_ring_t *ring = &t->rings[w->index];
        unsigned depth = ring->depth++;
        uint64_t t0 = spool__trace_now();
        fn(arg);
        uint64_t t1 = spool__trace_now();
        ring->depth = depth;
        spool__job_info_t info;
        spool__trace_describe_call(fn, arg, &info);
        spool__trace_put(ring, t->capacity, t0, t1, info.fn, info.arg,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, SPOOL__FROM_INJECTOR, 0, depth));
        spool__caller_leave(w);
        return true;
    }
#endif
    fn(arg);
    spool__caller_leave(w);
    return true;
}
