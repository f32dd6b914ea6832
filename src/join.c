/* spool_join: fork b for thieves, run a, then take b back or wait for it. */
#include "registry.h"

typedef struct join_job {
    spool__job_t base;
    spool_fn fn;
    void *arg;
    spool__spin_latch_t latch;
} join_job_t;

static void join_job_execute(spool__job_t *job)
{
    join_job_t *j = (join_job_t *)job;
    j->fn(j->arg);
    spool__spin_latch_set(&j->latch);
}

static void join_on_worker(spool__worker_t *w, spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    join_job_t job_b = {.base.execute = join_job_execute, .fn = b, .arg = arg_b};
    spool__spin_latch_init(&job_b.latch, w, false);
    if (SPOOL__UNLIKELY(!spool__worker_push(w, &job_b.base))) {
        /* Out of memory for the deque: no parallelism, nothing lost. */
        a(arg_a);
        b(arg_b);
        return;
    }
    a(arg_a);
    while (!spool__core_latch_probe(&job_b.latch.core)) {
        spool__job_t *job = spool__deque_pop(&w->deque);
        if (job == NULL) {
            /* b was stolen: work on other jobs until its thief is done. */
            spool__worker_wait_until_cold(w, &job_b.latch.core);
            return;
        }
        SPOOL__STAT_INC(w->stats.jobs_executed);
        if (job == &job_b.base) {
            b(arg_b); /* not stolen: run inline, no latch needed */
            return;
        }
        spool__job_execute(job); /* left behind by a */
    }
}

typedef struct join_args {
    spool_fn a, b;
    void *arg_a, *arg_b;
} join_args_t;

static void join_in_worker(void *arg)
{
    join_args_t *j = arg;
    join_on_worker(spool__current_worker(), j->a, j->arg_a, j->b, j->arg_b);
}

void spool_join(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    if (SPOOL__UNLIKELY(a == NULL || b == NULL))
        spool__abort("spool_join: NULL function");
    spool__worker_t *w = spool__current_worker();
    if (SPOOL__LIKELY(w != NULL)) {
        join_on_worker(w, a, arg_a, b, arg_b);
        return;
    }
    join_args_t args = {.a = a, .b = b, .arg_a = arg_a, .arg_b = arg_b};
    spool_pool_t *global = spool__global_registry();
    if (global == NULL || spool__registry_in_worker(global, join_in_worker, &args) != 0) {
        /* No pool to run in: the caller does the work itself. */
        a(arg_a);
        b(arg_b);
    }
}
