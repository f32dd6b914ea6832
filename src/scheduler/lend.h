/*
 * Internal: lending idle workers to a layer above the library (lend.c;
 * lend.md).  A layer that needs several threads running at once, each for
 * as long as it likes (an OpenMP team, whose threads wait for each other
 * at barriers), cannot have them from jobs: a job taken by a worker that is
 * waiting inside another job runs on top of it, and two such threads could
 * each wait for the other.  So it borrows workers that are idle at their
 * top level, where nothing lies below what they run.
 *
 * Each worker has a dock word: BUSY, IDLE (it looks for work at its top
 * level, and will look at the dock before it runs anything), or the lend
 * record of the layer that claimed it.  The claimer's CAS from IDLE and
 * the worker's CAS from IDLE when its take finds a job decide who has the
 * worker.  A claimed worker runs the record's function at its top level,
 * then looks for work again.
 *
 * These and the park below are the hooks of omp/ (libspool-omp), exported
 * from libspool.so but not part of the public API; doc/design.md names
 * them.
 */
#ifndef SPOOL_LEND_H
#define SPOOL_LEND_H

#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

#include "platform/atomics.h"
#include "job/job.h"
#include "sleep/latch.h"

struct spool__worker;

enum { SPOOL__DOCK_BUSY = 0, SPOOL__DOCK_IDLE = 1 };

/* A lend: what a claimed worker runs, fn(arg), at its top level.  The
 * claimer owns the record; the worker reads it from the claim until fn
 * returns.  job is the scheduler's (a job of kind lend). */
typedef struct spool__lend {
    spool__job_t job;
    void (*fn)(void *arg);
    void *arg;
    unsigned worker; /* set by spool__lend: the index of the worker claimed */
} spool__lend_t;

/* Prepares record l to run fn(arg). */
SPOOL_API void spool__lend_init(spool__lend_t *l, void (*fn)(void *arg), void *arg);

/* Claims up to max workers of pool that are idle at their top level, from
 * worker index first upwards (wrapping), skipping the calling thread; the
 * k-th claimed runs recs[k].  The caller is a job of pool, or pool is the
 * global pool (so that the pool is not destroyed meanwhile).  Returns how
 * many were claimed: recs[0 .. n-1] will each be run once. */
SPOOL_API unsigned spool__lend(spool_pool_t *pool, unsigned first, unsigned max,
                               spool__lend_t *recs);

/* Called by a lent worker inside its fn, once it will do nothing else but
 * return: it may be claimed again from now on (its next claim runs after
 * fn returns).  Lets a claimer that waits for fn's end (an OpenMP region's
 * end) find the worker idle at once. */
SPOOL_API void spool__lend_return(void);

/* Called by a lent worker inside its fn after spool__lend_return: after fn
 * returns it watches its dock for a while before it searches (lend.md,
 * L6), since its next claim comes soon (a team's next region). */
SPOOL_API void spool__lend_linger(void);

/* The calling thread's pool if it is a worker (or the caller slot's
 * holder), else NULL; and its index in it, else -1. */
SPOOL_API spool_pool_t *spool__current_pool(void);

/* As spool_global_init, for a pool whose creating thread keeps running
 * beside its workers (an OpenMP team's thread 0, for which a team of n
 * takes n - 1 workers): the pool counts that thread when it decides
 * whether it has more threads than CPUs, whose idle workers sleep at once
 * rather than spin and keep looking (sleep.md).  Returns as
 * spool_global_init. */
SPOOL_API int spool__global_init_team(const spool_config_t *config);

/* The global pool, started if need be; NULL if it cannot be started. */
SPOOL_API spool_pool_t *spool__global_pool_get(void);

/* The number of CPUs pool's workers may run on (the creating thread's
 * affinity, or its places), at least 1. */
SPOOL_API unsigned spool__pool_cpus(const spool_pool_t *pool);

/*
 * A park: one thread waits on it until another sets it, once.  A worker
 * waits in its pool's wait loop (running the jobs its filter takes, and
 * sleeping in the pool's sleep protocol); a thread outside any pool spins,
 * yields and blocks.  The waiter initialises it, waits, and destroys it;
 * the setter's set is its last access.
 */
typedef struct spool__park {
    bool blocking;
    struct spool__worker *owner; /* the waiting worker (not blocking) */
    union {
        spool__spin_latch_t spin;
        spool__lock_latch_t lock;
    };
} spool__park_t;

/* By the thread that will wait.  0 or an errno value (an outside thread's
 * mutex). */
SPOOL_API int spool__park_init(spool__park_t *p);
SPOOL_API void spool__park_wait(spool__park_t *p);
SPOOL_API void spool__park_set(spool__park_t *p);
SPOOL_API void spool__park_destroy(spool__park_t *p);

/* ---- the claimer's side (lend.c), inline ------------------------------------ */

/* Claims an idle dock for record rec (whose fields are written).  True if
 * it was idle. */
static inline bool spool__dock_claim(_Atomic(uintptr_t) *dock, spool__job_t *rec)
{
    uintptr_t idle = SPOOL__DOCK_IDLE;
    /* The relaxed look first leaves a busy worker's line alone.  Release
     * pairs with the worker's acquire in spool__dock_take and
     * spool__dock_close: it sees the record.  Seq-cst, for the claimer's
     * ClaimFence (lend.md, L4) to order it. */
    return atomic_load_explicit(dock, memory_order_relaxed) == SPOOL__DOCK_IDLE &&
           atomic_compare_exchange_strong_explicit(dock, &idle, (uintptr_t)rec,
                                                   memory_order_seq_cst, memory_order_relaxed);
}

/* ---- the worker's side (wait.c), inline ------------------------------------ */

static inline bool spool__dock_claimed(uintptr_t d)
{
    return d > SPOOL__DOCK_IDLE;
}

/* The worker, at its top level, about to look for work: it may be claimed
 * from now on.  Only from BUSY, which nobody else writes. */
static inline void spool__dock_open(_Atomic(uintptr_t) *dock)
{
    if (atomic_load_explicit(dock, memory_order_relaxed) == SPOOL__DOCK_BUSY)
        /* Relaxed: the claim's CAS and the worker's acquire loads carry the
         * record; this store publishes nothing. */
        atomic_store_explicit(dock, SPOOL__DOCK_IDLE, memory_order_relaxed);
}

/* The worker's look at its dock (search rounds, before a top-level take):
 * a claim's record, taken (the dock is BUSY again), or NULL. */
static inline spool__job_t *spool__dock_take(_Atomic(uintptr_t) *dock)
{
    /* Acquire pairs with the claimer's release CAS in spool__lend: the
     * record's fields are visible. */
    uintptr_t d = atomic_load_explicit(dock, memory_order_acquire);
    if (SPOOL__LIKELY(!spool__dock_claimed(d)))
        return NULL;
    /* Relaxed: a claimed dock is the worker's alone to reset. */
    atomic_store_explicit(dock, SPOOL__DOCK_BUSY, memory_order_relaxed);
    return (spool__job_t *)d;
}

/* The worker's top-level take found a job: it is busy, unless a claim came
 * first; then the claim's record is returned, to run after that job (which
 * someone may wait for), and the dock is BUSY either way. */
static inline spool__job_t *spool__dock_close(_Atomic(uintptr_t) *dock)
{
    uintptr_t d = SPOOL__DOCK_IDLE;
    /* Acquire on failure pairs with the claimer's release CAS (the record);
     * on success it orders nothing (C11 wants it no weaker than failure). */
    if (atomic_load_explicit(dock, memory_order_relaxed) == SPOOL__DOCK_BUSY ||
        atomic_compare_exchange_strong_explicit(dock, &d, SPOOL__DOCK_BUSY, memory_order_acquire,
                                                memory_order_acquire))
        return NULL;
    atomic_store_explicit(dock, SPOOL__DOCK_BUSY, memory_order_relaxed);
    return (spool__job_t *)d;
}

#endif
