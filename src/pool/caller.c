/* The caller slot: see caller.h and caller.md. */
#include "pool/caller.h"

#include "scheduler/worker.h"

/* How deep the slot's context stack is between holders: its own entry. */
#define BASE_DEPTH 1u

/* The calling thread, which holds the slot, becomes its worker. */
static spool__worker_t *slot_enter(spool_pool_t *pool, spool__context_t made_in)
{
    spool__worker_t *w = &pool->workers[pool->num_threads];
    spool__worker_enter(w);
    w->caller_entered = spool__ctx_enter(
        &w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed), made_in);
    return w;
}

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
    return slot_enter(pool, made_in);
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
    /* Its ReleaseFence (caller_slot.h): either we see a broadcast queued
     * after our last take here, or its server sees the slot free, or,
     * without a server, the broadcaster sees a sleeper that then finds the
     * slot free, or a searching worker finds both. */
    while (spool__caller_release_look(&pool->caller_taken, &slot->broadcasts)) {
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

bool spool__caller_serve(spool_pool_t *pool)
{
    if (!spool__caller_claim(&pool->caller_taken))
        return false;
    spool__worker_t *w = slot_enter(pool, (spool__context_t){NULL, 0});
    slot_drain(w);
    spool__worker_leave();
    slot_release(pool);
    return true;
}

/* A worker w of the pool serves the free slot's broadcasts, if the pool
 * has no server: as the slot's holder, in w's isolation region (w's stack
 * below may hold a region's job: nothing of another region may start on
 * top of it), after publishing its own private jobs (they stay takeable
 * while it serves).  With a server, the runs are the server's: a worker
 * that ran one could not run its own index's run of the same broadcast
 * until that one returned (H6). */
static void serve_slot(spool__job_t *job)
{
    (void)job;
    spool__worker_t *w = spool__current_worker();
    spool_pool_t *pool = w->pool;
    /* Under the lock: a broadcast that starts the server does so with the
     * lock held while it queues, so a worker that saw its run sees the
     * server (the hint in spool__slot_needs_serving may be stale). */
    pthread_mutex_lock(&pool->broadcast_lock);
    bool served = atomic_load_explicit(&pool->slot_started, memory_order_relaxed);
    pthread_mutex_unlock(&pool->broadcast_lock);
    if (served || !spool__caller_claim(&pool->caller_taken))
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
static const spool__job_kind_t kind_caller_service = {
    .name = "caller slot service", .execute = serve_slot, .describe = service_describe};
SPOOL__JOB_KIND_ROW(kind_caller_service);

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
