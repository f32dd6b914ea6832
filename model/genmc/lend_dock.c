/*
 * GenMC client for a worker's dock (src/scheduler/lend.h; lend.md), under
 * RC11 and IMM.  Two claimers each prepare a lend record (a plain field)
 * and claim the worker's dock; the worker, as its top level does, closes
 * the dock on a job its take found, reopens it to search, looks at it in
 * bounded rounds (running a claim and reopening, as a lend's return does),
 * and ends with a close (a last job found), so that every claim it was
 * given is taken by the end.  Each record run is checked to hold its
 * field (GenMC reports a data race where the claim does not publish it);
 * at the end every claim that succeeded was run exactly once, and none
 * that failed was.
 *
 * Mutants (model/genmc/mutants, run by check.sh), which must be rejected:
 *   lend-claim-relaxed   the claim's CAS is relaxed
 *   lend-take-relaxed    the worker's look at its dock is relaxed
 *   lend-close-relaxed   the worker's close CAS is relaxed
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* GenMC's pthread.h has no condition variables, which the latches that
 * lend.h's park holds name: a stand-in type, never used here. */
typedef struct {
    int unused;
} pthread_cond_t;

#include "scheduler/lend.h"

typedef struct record {
    spool__job_t job; /* first: the dock holds its address */
    int value;        /* the claimer's plain field */
    int runs;         /* the worker's count, plain */
} record_t;

static _Atomic(uintptr_t) dock = SPOOL__DOCK_IDLE; /* a new worker's */
static record_t records[2];
static atomic_int claimed[2];

static void run(spool__job_t *job)
{
    record_t *r = (record_t *)job;
    assert(r->value == 42 + (r == &records[1]));
    r->runs++;
}

static void *claimer(void *arg)
{
    int k = (int)(intptr_t)arg;
    records[k].value = 42 + k;
    if (spool__dock_claim(&dock, &records[k].job))
        atomic_store_explicit(&claimed[k], 1, memory_order_relaxed);
    return NULL;
}

static void worker(void)
{
    /* Its first take found a job. */
    spool__job_t *lent = spool__dock_close(&dock);
    if (lent != NULL)
        run(lent);
    /* It searches: two rounds. */
    spool__dock_open(&dock);
    for (int round = 0; round < 2; round++) {
        spool__job_t *job = spool__dock_take(&dock);
        if (job != NULL) {
            run(job);
            spool__dock_open(&dock); /* spool__lend_return */
        }
    }
    /* Its last take found a job. */
    lent = spool__dock_close(&dock);
    if (lent != NULL)
        run(lent);
}

int main(void)
{
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, claimer, (void *)(intptr_t)k);
    worker();
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < 2; k++)
        assert(records[k].runs == atomic_load_explicit(&claimed[k], memory_order_relaxed));
    return 0;
}
