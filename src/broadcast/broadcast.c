/*
 * Broadcasts: a function run once on every worker of a pool (spool_broadcast
 * and the pool, detached and scope forms).
 *
 * One broadcast_t describes the whole broadcast and the same job pointer is
 * pushed on every worker's broadcast queue (worker.h), under the pool's
 * broadcast_lock so that concurrent broadcasts are queued in one order
 * everywhere.  Every queue is grown first, so that either all of them take
 * the job or none does.  After queuing, every sleeping worker is woken
 * (sleep.md).
 */
#include <errno.h>
#include <stdlib.h>

#include "pool/caller.h"
#include "pool/global.h"
#include "scope/scope.h"
#include "scheduler/worker.h"

typedef enum { BROADCAST_WAIT, BROADCAST_DETACHED, BROADCAST_SCOPE } broadcast_kind_t;

typedef struct broadcast {
    spool__job_t base; /* queued once per worker */
    broadcast_kind_t kind;
    spool_broadcast_fn fn;              /* WAIT and DETACHED */
    spool_scope_broadcast_fn scope_fn;  /* SCOPE */
    void *ctx;
    spool_pool_t *pool;
    spool__count_latch_t *latch;        /* WAIT: counts the runs */
    spool_scope_t *scope;               /* SCOPE */
    void (*release)(void *ctx);         /* DETACHED */
    atomic_uint remaining;              /* DETACHED and SCOPE: runs not finished */
    /* The broadcaster's context (context.h): each run is a job made there
     * (SCOPE: a job of the scope).  Isolated waiters take broadcasts of any
     * region and run them in their own (isolate.md). */
    spool__context_t made_in;
} broadcast_t;

/* The last run of a heap broadcast: completion, then the block is freed. */
static void broadcast_last_run(broadcast_t *b)
{
    spool_pool_t *pool = b->pool;
    if (b->kind == BROADCAST_DETACHED) {
        void (*release)(void *) = b->release;
        void *ctx = b->ctx;
        free(b);
        if (release != NULL)
            release(ctx);
        spool__pool_work_done(pool);
    } else {
        spool_scope_t *scope = b->scope;
        free(b);
        spool__count_latch_set(&scope->latch);
    }
}

static void broadcast_execute(spool__job_t *job)
{
    broadcast_t *b = (broadcast_t *)job;
    spool__worker_t *w = spool__current_worker();
    unsigned index = w->index;
    unsigned n = b->pool->num_slots; /* spool_current_num_threads() */
    /* Runs in the broadcaster's context: a scope's job (dropped if it is
     * cancelled), or a job made in the broadcaster's scope and region.  An
     * isolated waiter keeps its own region (isolate.md): what the broadcast
     * waits for inside takes only that region's jobs, never work that could
     * need the waiter's region to finish first. */
    bool entered = spool__worker_enter_made_in(w, b->made_in);
    if (b->kind == BROADCAST_SCOPE) {
        if (spool__scope_dropping(b->scope))
            spool__scope_dropped(w);
        else
            b->scope_fn(b->scope, b->ctx, index, n);
    } else {
        b->fn(b->ctx, index, n);
    }
    if (entered)
        spool__worker_ctx_pop(w);
    if (b->kind == BROADCAST_WAIT) {
        /* b lives on the waiter's stack: once the count reaches zero the
         * waiter may return, so nothing of b is touched after this. */
        spool__count_latch_set(b->latch);
        return;
    }
    /* Acq_rel pairs with the other runs' decrements: the last run has seen
     * every run finish before it releases and frees. */
    SPOOL__COUNT(rmw_counts);
    if (atomic_fetch_sub_explicit(&b->remaining, 1, memory_order_acq_rel) == 1)
        broadcast_last_run(b);
}

static void broadcast_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const broadcast_t *b = (const broadcast_t *)job;
    info->fn = b->kind == BROADCAST_SCOPE ? spool__fn_bits((void (*)(void))b->scope_fn)
                                          : spool__fn_bits((void (*)(void))b->fn);
    info->arg = (uint64_t)(uintptr_t)b->ctx;
}

static spool__context_t broadcast_label(const spool__job_t *job)
{
    return ((const broadcast_t *)job)->made_in;
}

/* Queued on every worker's broadcast queue, never on a deque. */
static const spool__job_kind_t kind_broadcast = {.name = "broadcast",
                                                 .execute = broadcast_execute,
                                                 .label = broadcast_label,
                                                 .describe = broadcast_describe};
SPOOL__JOB_KIND_ROW(kind_broadcast);

/* The context a broadcast from the calling thread is made in (for pool):
 * its worker's, if it is one of pool's, with a SCOPE broadcast's scope. */
static spool__context_t made_in(spool_pool_t *pool, spool_scope_t *scope)
{
    spool__worker_t *w = spool__current_worker();
    spool__context_t x = {scope, 0};
    if (w != NULL && w->pool == pool) {
        x.region = w->ctx.top.region;
        if (scope == NULL)
            x.scope = w->ctx.top.scope;
    }
    return x;
}

/* Queues b on every worker of pool and wakes the sleepers.  0 or ENOMEM (then
 * it is queued nowhere). */
static int broadcast_queue(spool_pool_t *pool, broadcast_t *b)
{
    b->base.execute = broadcast_execute;
    b->pool = pool;
    /* A detached broadcast outlives its maker's scope and region, as a
     * detached spawn does: it belongs to neither. */
    b->made_in = b->kind == BROADCAST_DETACHED
                     ? (spool__context_t){NULL, 0}
                     : made_in(pool, b->kind == BROADCAST_SCOPE ? b->scope : NULL);
    pthread_mutex_lock(&pool->broadcast_lock);
    /* The lock makes its holder the queues' only pusher (their "owner").
     * Every index: the caller slot's too, which its holder serves, or a
     * worker while nobody holds it (caller.c). */
    for (unsigned i = 0; i < pool->num_slots; i++) {
        if (!spool__deque_reserve(&pool->workers[i].broadcasts)) {
            pthread_mutex_unlock(&pool->broadcast_lock);
            return ENOMEM;
        }
    }
    for (unsigned i = 0; i < pool->num_slots; i++)
        (void)spool__deque_push_public(&pool->workers[i].broadcasts, &b->base); /* reserved */
    if (pool->num_slots > pool->num_threads)
        spool__slot_server_post(pool); /* the slot's index beside the workers' */
    pthread_mutex_unlock(&pool->broadcast_lock);
    spool__sleep_new_broadcast(&pool->sleep);
    return 0;
}

/* The blocking form: queue, then wait for every run (running the caller's
 * own part, or its own pool's jobs, meanwhile). */
static int broadcast_wait(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx)
{
    spool__worker_t *w = spool__current_worker();
    bool member = w != NULL && w->pool == pool;
    int err = member ? 0 : spool__pool_add_work_external(pool);
    if (err != 0)
        return err;
    spool__count_latch_t latch;
    err = spool__worker_count_latch_init(&latch, w, !member);
    if (err == 0) {
        /* One count per run, on top of the waiter's own. */
        atomic_store_explicit(&latch.counter, (size_t)pool->num_slots + 1, memory_order_relaxed);
        broadcast_t b = {.kind = BROADCAST_WAIT, .fn = fn, .ctx = ctx, .latch = &latch};
        err = broadcast_queue(pool, &b);
        if (err == 0)
            spool__count_latch_wait(&latch, w);
        spool__count_latch_destroy(&latch);
    }
    if (!member)
        spool__pool_work_done(pool);
    return err;
}

/* A heap broadcast (DETACHED or SCOPE), queued; freed by its last run. */
static int broadcast_heap(spool_pool_t *pool, const broadcast_t *init)
{
    broadcast_t *b = malloc(sizeof *b);
    if (b == NULL)
        return ENOMEM;
    *b = *init;
    atomic_init(&b->remaining, pool->num_slots);
    int err = broadcast_queue(pool, b);
    if (err != 0)
        free(b);
    return err;
}

static int spawn_broadcast_into(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx,
                                void (*release)(void *ctx))
{
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool) {
        spool__pool_add_work_internal(pool);
    } else {
        int err = spool__pool_add_work_external(pool);
        if (err != 0)
            return err;
    }
    broadcast_t init = {.kind = BROADCAST_DETACHED, .fn = fn, .ctx = ctx, .release = release};
    int err = broadcast_heap(pool, &init);
    if (err != 0)
        spool__pool_work_done(pool);
    return err;
}

typedef struct broadcast_call {
    spool_pool_t *pool;
    spool_broadcast_fn fn;
    void *ctx;
    int err;
} broadcast_call_t;

static void broadcast_as_caller(void *arg)
{
    broadcast_call_t *c = arg;
    c->err = broadcast_wait(c->pool, c->fn, c->ctx);
}

/* The blocking form from anywhere: from outside the pool, as its caller if
 * it lends its slot and nobody holds it (the caller then runs the slot's
 * index itself, beside the workers), else waiting for the runs. */
static int broadcast_blocking(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx)
{
    if (spool__current_worker() == NULL) {
        broadcast_call_t c = {pool, fn, ctx, 0};
        if (spool__caller_run(pool, broadcast_as_caller, &c,
                              (spool__context_t){spool__outside_scope, 0}))
            return c.err;
    }
    return broadcast_wait(pool, fn, ctx);
}

int spool_broadcast(spool_broadcast_fn fn, void *ctx)
{
    if (fn == NULL)
        return EINVAL;
    spool__worker_t *w = spool__current_worker();
    spool_pool_t *pool = w != NULL ? w->pool : spool__global_pool();
    if (pool == NULL) {
        fn(ctx, 0, 1); /* no pool could be started: the caller is the one thread */
        return 0;
    }
    return broadcast_blocking(pool, fn, ctx);
}

int spool_pool_broadcast(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx)
{
    if (pool == NULL || fn == NULL)
        return EINVAL;
    int err = spool__pool_check_fork(pool);
    return err != 0 ? err : broadcast_blocking(pool, fn, ctx);
}

int spool_spawn_broadcast(spool_broadcast_fn fn, void *ctx, void (*release)(void *ctx))
{
    if (fn == NULL)
        return EINVAL;
    spool__worker_t *w = spool__current_worker();
    spool_pool_t *pool = w != NULL ? w->pool : spool__global_pool();
    if (pool == NULL) {
        fn(ctx, 0, 1);
        if (release != NULL)
            release(ctx);
        return 0;
    }
    return spawn_broadcast_into(pool, fn, ctx, release);
}

int spool_pool_spawn_broadcast(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx,
                               void (*release)(void *ctx))
{
    if (pool == NULL || fn == NULL)
        return EINVAL;
    int err = spool__pool_check_fork(pool);
    return err != 0 ? err : spawn_broadcast_into(pool, fn, ctx, release);
}

int spool_scope_spawn_broadcast(spool_scope_t *scope, spool_scope_broadcast_fn fn, void *ctx)
{
    if (scope == NULL || fn == NULL)
        return EINVAL;
    if (spool__scope_dropping(scope))
        return ECANCELED;
    spool_pool_t *pool = scope->pool;
    if (pool == NULL) {
        fn(scope, ctx, 0, 1);
        return 0;
    }
    /* The caller holds a count of the scope, so it cannot end before this
     * one is added; the last run drops it. */
    spool__count_latch_increment(&scope->latch);
    broadcast_t init = {.kind = BROADCAST_SCOPE, .scope_fn = fn, .ctx = ctx, .scope = scope};
    int err = broadcast_heap(pool, &init);
    if (err != 0)
        spool__count_latch_set(&scope->latch);
    return err;
}
