/* Detached spawns: spool_spawn, spool_spawn_fifo and their pool variants. */
#include <errno.h>


#include "pool/global.h"
#include "scheduler/worker.h"

static void spawn_job_execute(spool__job_t *base)
{
    spool__heap_job_t *job = (spool__heap_job_t *)base;
    spool_fn fn = (spool_fn)job->job.fn;
    void *arg = job->job.arg;
    spool_pool_t *pool = job->job.ctx;
    spool__worker_t *w = spool__current_worker();
    spool__job_free(&pool->job_pool, &w->jobs, job);
    /* Made in a scope or not, a detached spawn is none's: a cancel of the
     * scope it was made in does not reach into it. */
    bool entered = spool__worker_enter_unscoped(w);
    fn(arg);
    if (entered)
        spool__worker_ctx_pop(w);
    spool__pool_work_done(pool);
}

static void spawn_fifo_run(void *pool, spool__fifo_call_t call)
{
    spool__worker_t *w = spool__current_worker();
    bool entered = spool__worker_enter_unscoped(w); /* as above */
    ((spool_fn)call.fn)(call.arg);
    if (entered)
        spool__worker_ctx_pop(w);
    spool__pool_work_done(pool);
}

/* A detached spawn belongs to no scope and no region. */
static spool__context_t spawn_fifo_label(void *pool)
{
    (void)pool;
    return (spool__context_t){NULL, 0};
}

/* Detached spawns are counted on the pool when made: no local ones. */
static const spool__fifo_ops_t spawn_fifo_ops = {.label = spawn_fifo_label, .run = spawn_fifo_run};

/* A detached spawn belongs to no scope and no region. */
static spool__context_t spawn_label(const spool__job_t *job)
{
    (void)job;
    return (spool__context_t){NULL, 0};
}

static const spool__job_kind_t kind_spawn = {.name = "spawn",
                                             .execute = spawn_job_execute,
                                             .label = spawn_label,
                                             .describe = spool__describe_heap_job};
SPOOL__JOB_KIND_ROW(kind_spawn);

static int spawn_into(spool_pool_t *pool, spool_fn fn, void *arg, bool fifo)
{
    spool__worker_t *w = spool__current_worker();
    spool__job_cache_t *cache = spool__job_cache_of(pool, w);
    /* Made inside an isolation region, a detached spawn is not the
     * region's: it goes to the pool's queue, not on the deque. */
    bool on_deque = cache != NULL && SPOOL__LIKELY(w->ctx.top.region == 0);
    if (cache != NULL) {
        spool__pool_add_work_internal(pool);
    } else {
        int err = spool__pool_add_work_external(pool);
        if (err != 0)
            return err;
    }
    int err;
    if (on_deque && fifo) {
        /* A call on w's FIFO: no job block of its own.  The FIFO is
         * detached spawns' alone; its ops are set before its first ticket
         * exists, so every holder of a ticket reads them after this. */
        if (w->fifo.ops == NULL)
            w->fifo.ops = &spawn_fifo_ops;
        err = spool__worker_push_fifo(w, &w->fifo, (spool__fifo_fn_t)fn, arg, false);
        if (err != 0)
            spool__pool_work_done(pool);
        return err;
    }
    spool__heap_job_t *job = spool__job_alloc(&pool->job_pool, cache);
    if (job == NULL) {
        spool__pool_work_done(pool);
        return ENOMEM;
    }
    job->job.base.execute = spawn_job_execute;
    job->job.fn = (void (*)(void))fn;
    job->job.arg = arg;
    job->job.ctx = pool;
    if (!on_deque)
        err = spool__pool_inject(pool, &job->job.base, NULL);
    else
        err = spool__worker_push(w, &job->job.base) ? 0 : ENOMEM;
    if (err != 0) {
        spool__job_free(&pool->job_pool, cache, job);
        spool__pool_work_done(pool);
    }
    return err;
}

static int spawn_current(spool_fn fn, void *arg, bool fifo)
{
    if (fn == NULL)
        return EINVAL;
    spool__worker_t *w = spool__current_worker();
    spool_pool_t *pool = w != NULL ? w->pool : spool__global_pool();
    if (pool == NULL) {
        fn(arg); /* no pool could be started: run it here */
        return 0;
    }
    return spawn_into(pool, fn, arg, fifo);
}

int spool_spawn(spool_fn fn, void *arg)
{
    return spawn_current(fn, arg, false);
}

int spool_spawn_fifo(spool_fn fn, void *arg)
{
    return spawn_current(fn, arg, true);
}

static int spawn_pool(spool_pool_t *pool, spool_fn fn, void *arg, bool fifo)
{
    if (pool == NULL || fn == NULL)
        return EINVAL;
    int err = spool__pool_check_fork(pool);
    return err != 0 ? err : spawn_into(pool, fn, arg, fifo);
}

int spool_pool_spawn(spool_pool_t *pool, spool_fn fn, void *arg)
{
    return spawn_pool(pool, fn, arg, false);
}

int spool_pool_spawn_fifo(spool_pool_t *pool, spool_fn fn, void *arg)
{
    return spawn_pool(pool, fn, arg, true);
}
