/* The caller slot: see caller.h and caller.md. */
#include "registry/caller.h"

#include "registry/worker.h"

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

bool spool__caller_needs_serving(spool_pool_t *pool)
{
    if (pool->num_slots == pool->num_threads)
        return false;
    /* Relaxed: hints; the sleepers' final check orders them (wait.md). */
    return spool__deque_len(&pool->workers[pool->num_threads].broadcasts) > 0 &&
           atomic_load_explicit(&pool->caller_taken, memory_order_relaxed) == 0;
}

/* The holder w drains the slot's deque and broadcasts and leaves the
 * context it entered; the slot's contexts are at their base after. */
static void slot_drain(spool__worker_t *w)
{
    /* Jobs left on the deque are the holder's to run: a thief may still
     * take public ones meanwhile, and none may stay private once the
     * holder has gone. */
    spool__drain_local(w);
    if (w->caller_entered)
        spool__worker_ctx_pop(w);
    if (atomic_load_explicit(&w->ctx.depth, memory_order_relaxed) != BASE_DEPTH)
        spool__abort("internal error: the caller slot's contexts are unbalanced");
}

/* The slot is given back: a broadcast queued for it after the holder's last
 * look would wait for a worker's search, so the releaser looks once more
 * and serves it itself if it can have the slot again (wait.md, "The
 * caller slot's index").  Returns with the slot released and the calling
 * thread outside it. */
static void slot_release(spool_pool_t *pool)
{
    spool__worker_t *slot = &pool->workers[pool->num_threads];
    for (;;) {
        spool__caller_release(&pool->caller_taken);
        /* ReleaseFence: pairs with the broadcaster's PushFence
         * (spool__sleep_new_broadcast) and the sleepers' SleepFence:
         * either we see its broadcast here, or it sees a sleeper that then
         * finds the slot free, or a searching worker finds both. */
        spool__fence_seq_cst();
        if (spool__deque_len(&slot->broadcasts) == 0 || !spool__caller_claim(&pool->caller_taken))
            return;
        spool__worker_t *prev = spool__current_worker();
        spool__worker_enter(slot);
        slot->caller_entered = false;
        slot_drain(slot);
        if (prev != NULL)
            spool__worker_enter(prev);
        else
            spool__worker_leave();
    }
}

void spool__caller_leave(spool__worker_t *w)
{
    spool_pool_t *pool = w->pool;
    slot_drain(w);
    spool__worker_leave();
    slot_release(pool);
    spool__pool_work_done(pool); /* last: it may let destroy free the pool */
}

/* A worker w of the pool serves the free slot's broadcasts: as the slot's
 * holder, in w's isolation region (w's stack below may hold a region's
 * job: nothing of another region may start on top of it), after
 * publishing its own private jobs (they stay takeable while it serves). */
static void serve_slot(spool__job_t *job)
{
    (void)job;
    spool__worker_t *w = spool__current_worker();
    spool_pool_t *pool = w->pool;
    if (!spool__caller_claim(&pool->caller_taken))
        return; /* another serves it, or a caller holds it */
    spool__deque_t *d = &w->deque;
    if (d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed))
        spool__worker_publish(w);
    spool__worker_t *slot = &pool->workers[pool->num_threads];
    spool__worker_enter(slot);
    slot->caller_entered =
        spool__ctx_enter(&slot->ctx, atomic_load_explicit(&slot->deque.bottom, memory_order_relaxed),
                         (spool__context_t){NULL, w->ctx.top.region});
    slot_drain(slot);
    spool__worker_enter(w);
    slot_release(pool);
}

static void service_describe(const spool__job_t *job, spool__job_info_t *info)
{
    info->fn = spool__fn_bits((void (*)(void))job->execute);
    info->arg = 0;
}

spool__job_t spool__caller_service = {.execute = serve_slot};

/* Not on any queue: a worker's take returns it (wait.c). */
const spool__job_kind_t spool__kind_caller_service = {
    .name = "caller slot service", .execute = serve_slot, .describe = service_describe};

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
