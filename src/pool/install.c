/* Work from outside a pool: the injector's push with its wake-up, and
 * spool_pool_install (a job run on a worker while the caller waits). */
#include "scheduler/pool.h"

#include "pool/caller.h"
#include "scheduler/worker.h"

int spool__pool_inject(spool_pool_t *pool, spool__job_t *job, bool *woke)
{
    bool was_empty;
    int err = spool__injector_push(&pool->injector, job, &was_empty);
    bool did_wake = err == 0 && spool__sleep_new_injected_jobs(&pool->sleep, 1, was_empty);
    if (woke != NULL)
        *woke = did_wake;
    return err;
}

typedef struct install_job {
    spool__job_t base;
    spool_fn fn;
    void *arg;
    spool__spin_latch_t *spin; /* the caller is a worker of another pool */
    spool__lock_latch_t *lock; /* the caller is outside any pool */
    /* The installer's context: fn runs in it (its scope and isolation
     * region reach across pools). */
    spool__context_t made_in;
    /* Made by a worker of another pool: isolated waiters take it too
     * (isolate.md), since the installer may hold up their region. */
    bool from_worker;
} install_job_t;

static void install_job_execute(spool__job_t *job)
{
    install_job_t *j = (install_job_t *)job;
    spool__worker_t *w = spool__current_worker();
    bool entered = spool__worker_enter_made_in(w, j->made_in);
    j->fn(j->arg);
    if (entered)
        spool__worker_ctx_pop(w);
    /* j dies once the latch is set.  The installer drops the work count
     * once its wait returns (spool__pool_run_in_worker), not the job: the
     * installer may still be in the injection's wake-up, reading the pool,
     * when the job has run. */
    if (j->spin != NULL)
        spool__spin_latch_set(j->spin);
    else
        spool__lock_latch_set(j->lock);
}

static bool install_from_worker(const spool__job_t *job)
{
    return ((const install_job_t *)job)->from_worker;
}

static void install_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const install_job_t *j = (const install_job_t *)job;
    spool__trace_describe_call(j->fn, j->arg, info);
}

static spool__context_t install_label(const spool__job_t *job)
{
    return ((const install_job_t *)job)->made_in;
}

/* On the installer's stack, in the pool's queue only. */
static const spool__job_kind_t kind_install = {.name = "install",
                                               .execute = install_job_execute,
                                               .label = install_label,
                                               .describe = install_describe,
                                               .from_worker = install_from_worker};
SPOOL__JOB_KIND_ROW(kind_install);

int spool__pool_run_root(spool_pool_t *pool, spool_fn fn, void *arg)
{
    if (spool__current_worker() == NULL &&
        spool__caller_run(pool, fn, arg, (spool__context_t){spool__outside_scope, 0}))
        return 0;
    return spool__pool_run_in_worker(pool, fn, arg);
}

int spool__pool_run_in_worker(spool_pool_t *pool, spool_fn fn, void *arg)
{
    spool__worker_t *w = spool__current_worker();
    int err = spool__pool_add_work_external(pool);
    if (err != 0)
        return err;
    install_job_t job = {
        .base.execute = install_job_execute, .fn = fn, .arg = arg};
    if (w != NULL) {
        job.made_in = w->ctx.top;
        job.from_worker = true;
    } else
        job.made_in = (spool__context_t){spool__outside_scope, 0};
    if (w != NULL) {
        /* A worker of another pool keeps running its own pool's jobs while
         * it waits: pools installing into each other cannot deadlock. */
        spool__spin_latch_t latch;
        spool__worker_latch_init(&latch, w, true);
        job.spin = &latch;
        err = spool__pool_inject(pool, &job.base, NULL);
        if (err == 0) {
            /* An isolated waiter may take it (isolate.md).  PushFence:
             * pairs with the isolated sleeper's SleepFence. */
            spool__fence_seq_cst();
            spool__sleep_wake_isolated(&pool->sleep);
            spool__wait_until(w, &latch.core);
        }
    } else {
        spool__lock_latch_t latch;
        err = spool__lock_latch_init(&latch);
        if (err == 0) {
            job.lock = &latch;
            bool woke;
            err = spool__pool_inject(pool, &job.base, &woke);
            if (err == 0)
                spool__lock_latch_wait(&latch, woke);
            spool__lock_latch_destroy(&latch);
        }
    }
    spool__pool_work_done(pool); /* after the wait: see install_job_execute */
    return err;
}

int spool_pool_install(spool_pool_t *pool, spool_fn fn, void *arg)
{
    if (pool == NULL || fn == NULL)
        return EINVAL;
    int err = spool__pool_check_fork(pool);
    if (err != 0)
        return err;
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool) {
        fn(arg);
        return 0;
    }
    return spool__pool_run_in_worker(pool, fn, arg);
}

