/*
 * GenMC client for a scope's credits (src/scope/scope.c, scope.md),
 * under RC11 and IMM, on the real split deque.  The owner (main) runs a
 * scope: its count starts at 1 (the body); it spawns JOBS (2) local jobs
 * (uncounted, `local` counts them) as the scope's worker does, pushing them
 * as join and spawn do; publishing counts every local job it makes public
 * and turns it into a counted one (spool__scope_block_published: local--,
 * count++, new execute function), before the release store of split.  The
 * scope's end pops and runs jobs until no local job is left; if the count
 * is then 1 (the body's only) it is done at once, else it drops the body's
 * count, runs what is left in its deque, and waits for the count to reach
 * zero.  THIEVES threads steal (raising demand) and run what they
 * get, which must be a counted job.  Every job writes a plain result; at the
 * end every job ran exactly once and the owner reads every result (a race
 * if the count reached zero before a thief's job was done).  The counting
 * is this file's copy of scope.c's few lines (scope.c needs the whole
 * pool); the deque is the real one.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   -DCOUNT_ON_PUBLISH=0   publishing does not count the job it makes public
 *   -DDONE_ORDER=memory_order_relaxed  a finished counted job's decrement
 *   -DLAST_COUNT_ORDER=memory_order_relaxed  the end's look for "only the
 *                                            body's count is left"
 */
/* Two jobs: three took GenMC minutes under IMM (growth is split_deque.c's). */
#define JOBS 2
#define DEQUE_CLIENT_OWNER 1
#include "deque_client.h"

#ifndef COUNT_ON_PUBLISH
#define COUNT_ON_PUBLISH 1
#endif
#ifndef DONE_ORDER
#define DONE_ORDER memory_order_acq_rel
#endif
#ifndef LAST_COUNT_ORDER
#define LAST_COUNT_ORDER memory_order_acquire
#endif

void __VERIFIER_assume(bool);

static atomic_int count = 1; /* the scope's latch count: 1 for the body */
static int local;            /* owner only */
static int result[JOBS];     /* plain, written by whoever runs the job */

static void local_execute(spool__job_t *job)
{
    (void)job;
}
static void counted_execute(spool__job_t *job)
{
    (void)job;
}

static void run(spool__job_t *job)
{
    test_job_t *j = (test_job_t *)job;
    take(job);
    result[j - jobs] = 1;
    if (job->execute == local_execute)
        local--; /* only the owner runs a local job */
    else
        atomic_fetch_sub_explicit(&count, 1, DONE_ORDER);
}

static void count_local(spool__job_t *job)
{
    if (job->execute == local_execute) {
        local--;
        if (COUNT_ON_PUBLISH)
            atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
        job->execute = counted_execute;
    }
}

static void client_publish(void)
{
    publish_visiting(count_local);
}

static void try_steal(void)
{
    spool__job_t *job;
    if (spool__deque_steal(&deque, &job) == SPOOL__STEAL_SUCCESS) {
        assert(job->execute == counted_execute); /* never a local job */
        run(job);
    }
}


int main(void)
{
    spool__deque_init(&deque);
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, i == 0 ? &t[i] : NULL);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].payload = i + 1;
        jobs[i].base.execute = local_execute;
        local++;
        owner_push(&jobs[i].base);
    }
    /* The scope's end: local jobs first (each is in our deque), then the
     * body's count, then whatever is left, then the wait. */
    while (local > 0) {
        spool__job_t *job = owner_pop();
        assert(job != NULL);
        run(job);
    }
    /* spool__count_latch_wait's fast path: only the body's count left means
     * no counted job is pending or running, and none can be made (only a
     * count holder spawns); acquire pairs with the last decrement. */
    if (atomic_load_explicit(&count, LAST_COUNT_ORDER) != 1) {
        atomic_fetch_sub_explicit(&count, 1, DONE_ORDER);
        spool__job_t *job;
        while ((job = owner_pop()) != NULL)
            run(job);
        /* Acquire pairs with the decrements: the count is zero only once
         * every counted job is done. */
        __VERIFIER_assume(atomic_load_explicit(&count, memory_order_acquire) == 0);
    }
    for (int i = 0; i < JOBS; i++)
        assert(result[i] == 1);
    check_each_taken_once();
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    return 0;
}
