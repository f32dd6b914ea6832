/* Internal: a reserve thread's hand-over (reserve.c; omp.md, "Teams"), in
 * a header of its own so that the model checker runs this very code
 * (model/genmc/omp_reserve.c).  The team's leader posts a member's task;
 * the thread, between tasks, spins and then sleeps in spool's park,
 * registered as a barrier's waiter is (B1, B2).  Never installed. */
#ifndef SPOOL_OMP_RESERVE_POST_H
#define SPOOL_OMP_RESERVE_POST_H

#include "barrier.h"
#include "env.h"
#include "reserve.h"

#include "scheduler/lend.h"

struct spool__omp_reserve {
    /* Works posted; the thread counts those it took. */
    SPOOL_OMP_ALIGNED _Atomic unsigned long posted;
    /* 1 while the thread is registered to park and not yet claimed. */
    _Atomic int parked;
    /* The work posted last: written before posted moves on. */
    void (*fn)(void *);
    void *arg;
    unsigned long generation; /* the fork generation it was made in */
    spool__park_t park;
    struct spool__omp_reserve *next; /* on the free list */
};

/* One park of the reserve thread, registered for work number done + 1: it
 * sleeps unless that work is posted meanwhile (its caller looks again). */
static inline void spool__omp_reserve_park(spool__omp_reserve_t *r, unsigned long done)
{
    if (spool__park_init(&r->park) != 0)
        spool__omp_fatal("cannot set up a reserve thread's wait");
    /* Seq-cst store, then seq-cst load: pairs with the poster's seq-cst
     * store of posted and exchange of parked (the store-buffer pair:
     * either we see the work, or the poster sees us parked). */
    atomic_store_explicit(&r->parked, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&r->posted, memory_order_seq_cst) == done ||
        /* Work came: unless the poster claimed us (then it sets the park,
         * which we must wait for), we are done.  Acq_rel: as the poster's
         * exchange. */
        atomic_exchange_explicit(&r->parked, 0, memory_order_acq_rel) == 0)
        spool__park_wait(&r->park);
    spool__park_destroy(&r->park);
}

/* The reserve thread waits until more works are posted than the done it
 * took: it spins, then parks. */
static inline void spool__omp_reserve_await(spool__omp_reserve_t *r, unsigned long done)
{
    /* Acquire (each load) pairs with the poster's seq-cst store: the work's
     * fields are visible. */
    unsigned long spin = spool__omp_spin_count(1);
    for (unsigned long i = 0; i < spin; i++) {
        if (atomic_load_explicit(&r->posted, memory_order_acquire) != done)
            return;
        spool__spin_round(i);
    }
    while (atomic_load_explicit(&r->posted, memory_order_acquire) == done)
        spool__omp_reserve_park(r, done);
}

/* The leader posts fn(arg): the thread runs it next. */
static inline void spool__omp_reserve_post(spool__omp_reserve_t *r, void (*fn)(void *), void *arg)
{
    r->fn = fn;
    r->arg = arg;
    /* Seq-cst: the store-buffer pair with spool__omp_reserve_await; a
     * release of the work's fields to the thread's acquire loads.  Only the
     * team's leader posts, after the last work's region ended. */
    atomic_store_explicit(&r->posted, atomic_load_explicit(&r->posted, memory_order_relaxed) + 1,
                          memory_order_seq_cst);
    /* Seq-cst: the other half of the store-buffer pair (after our store of
     * posted: either we read the thread's registration, or it reads our
     * post); acquire pairs with its seq-cst store of parked (its park is
     * set up).  Of the thread and us, the one whose exchange reads 1 owns
     * the wake-up. */
    if (atomic_exchange_explicit(&r->parked, 0, memory_order_seq_cst) == 1)
        spool__park_set(&r->park);
}

#endif
