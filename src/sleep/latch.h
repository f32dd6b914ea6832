/*
 * Internal: latches, one-shot signals that each have one owner thread.
 *
 * The core latch is rayon's (its sleep RFC): UNSET -> SLEEPY -> SLEEPING are
 * moved by the owner alone (under its sleep mutex for the second step), and
 * SET by anyone with one exchange.  Only a setter that replaces SLEEPING
 * wakes the owner, and it wakes the owner alone.  See sleep.md.
 */
#ifndef SPOOL_LATCH_H
#define SPOOL_LATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "platform/atomics.h"
#include "platform/stats.h"

struct spool__sleep;

enum {
    SPOOL__LATCH_UNSET = 0,
    SPOOL__LATCH_SLEEPY = 1,
    SPOOL__LATCH_SLEEPING = 2,
    SPOOL__LATCH_SET = 3
};

typedef struct spool__core_latch {
    atomic_int state;
} spool__core_latch_t;

static inline void spool__core_latch_init(spool__core_latch_t *l)
{
    atomic_init(&l->state, SPOOL__LATCH_UNSET);
}

/* Owner: has the latch been set?  A true answer makes visible everything the
 * setter did before setting. */
static inline bool spool__core_latch_probe(spool__core_latch_t *l)
{
    /* Acquire pairs with the acq_rel exchange in spool__core_latch_set. */
    return atomic_load_explicit(&l->state, memory_order_acquire) == SPOOL__LATCH_SET;
}

/* Owner, about to sleep: UNSET -> SLEEPY.  False if the latch is set.
 * Relaxed: a later SET is ordered after this in the latch's modification
 * order, which is all the protocol needs. */
static inline bool spool__core_latch_get_sleepy(spool__core_latch_t *l)
{
    int expected = SPOOL__LATCH_UNSET;
    return atomic_compare_exchange_strong_explicit(&l->state, &expected, SPOOL__LATCH_SLEEPY,
                                                   memory_order_relaxed, memory_order_relaxed);
}

/* Owner, holding its sleep mutex: SLEEPY -> SLEEPING.  False if set. */
static inline bool spool__core_latch_fall_asleep(spool__core_latch_t *l)
{
    int expected = SPOOL__LATCH_SLEEPY;
    return atomic_compare_exchange_strong_explicit(&l->state, &expected, SPOOL__LATCH_SLEEPING,
                                                   memory_order_relaxed, memory_order_relaxed);
}

/* Owner, after sleeping or giving up on it: SLEEPING -> UNSET unless set. */
static inline void spool__core_latch_wake_up(spool__core_latch_t *l)
{
    int expected = SPOOL__LATCH_SLEEPING;
    atomic_compare_exchange_strong_explicit(&l->state, &expected, SPOOL__LATCH_UNSET,
                                            memory_order_relaxed, memory_order_relaxed);
}

/* Anyone: sets the latch.  True if the owner was SLEEPING and must be woken.
 * The caller must not touch the latch afterwards: the owner may be gone. */
static inline bool spool__core_latch_set(spool__core_latch_t *l)
{
    /* Release pairs with the acquire in spool__core_latch_probe; acquire
     * orders the wake-up after the owner's SLEEPING. */
    return atomic_exchange_explicit(&l->state, SPOOL__LATCH_SET, memory_order_acq_rel) ==
           SPOOL__LATCH_SLEEPING;
}

/* A core latch owned by a worker, e.g. the latch of join's second half:
 * its setter wakes the owner, thread target of sleep state sleep.  cross:
 * the setter may run in another pool, and holds the owner's sleep state
 * through its keeper until the wake-up is done (the owner may return, and
 * its pool be destroyed, as soon as the latch is set; sleep.h). */
typedef struct spool__spin_latch {
    spool__core_latch_t core;
    struct spool__sleep *sleep;
    unsigned target;
    bool cross;
} spool__spin_latch_t;

static inline void spool__spin_latch_init(spool__spin_latch_t *l, struct spool__sleep *sleep,
                                          unsigned target, bool cross)
{
    spool__core_latch_init(&l->core);
    l->sleep = sleep;
    l->target = target;
    l->cross = cross;
}

void spool__spin_latch_set(spool__spin_latch_t *l);

/*
 * A latch for threads outside any pool.  The waiter spins a little, then
 * blocks on a condvar.  state is the core latch's protocol with the
 * waiter's condvar as its sleep: UNSET -> BLOCKING is the waiter's CAS under
 * the mutex, SET is the setter's exchange.  Only a setter that replaces
 * BLOCKING takes the mutex (and the waiter cannot return before it unlocks);
 * any other setter's exchange is its last access, so a waiter that sees SET
 * may free the latch at once.  model/lock_latch.pml checks the hand-off.
 */
enum { SPOOL__LOCK_LATCH_UNSET = 0, SPOOL__LOCK_LATCH_BLOCKING = 1, SPOOL__LOCK_LATCH_SET = 2 };

typedef struct spool__lock_latch {
    atomic_int state;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_set; /* guarded by lock; set only if the waiter blocked */
} spool__lock_latch_t;

int spool__lock_latch_init(spool__lock_latch_t *l);
void spool__lock_latch_destroy(spool__lock_latch_t *l);
void spool__lock_latch_set(spool__lock_latch_t *l);
/* Blocks until l is set.  woke: the caller's job woke a sleeping worker
 * just now, or the caller cannot tell (spool__lock_latch_wait yields once
 * before it spins then). */
void spool__lock_latch_wait(spool__lock_latch_t *l, bool woke);

/*
 * A counter that sets its latch when it drops to zero (scopes).  It starts
 * at 1 for the owner.  The latch is a core latch of a worker (sleep != NULL
 * at init: the owner's sleep state and index) or, for an owner outside any
 * pool, a lock latch.  The owner's wait is the worker's (worker.h).
 */
typedef struct spool__count_latch {
    atomic_size_t counter;
    bool blocking; /* which of the two latches below is in use */
    union {
        spool__spin_latch_t spin; /* owned by a worker */
        spool__lock_latch_t lock; /* owned by a thread outside any pool */
    };
} spool__count_latch_t;

/* cross: as for spool__spin_latch_init (the setters may run in another pool
 * than the owner's). */
static inline int spool__count_latch_init(spool__count_latch_t *l, struct spool__sleep *sleep,
                                          unsigned target, bool cross)
{
    atomic_init(&l->counter, 1);
    l->blocking = sleep == NULL;
    if (l->blocking)
        return spool__lock_latch_init(&l->lock);
    spool__spin_latch_init(&l->spin, sleep, target, cross);
    return 0;
}
static inline void spool__count_latch_destroy(spool__count_latch_t *l)
{
    if (l->blocking)
        spool__lock_latch_destroy(&l->lock);
}
static inline void spool__count_latch_increment(spool__count_latch_t *l)
{
    /* Relaxed: the incrementer holds a count already, so zero cannot be
     * reached concurrently. */
    atomic_fetch_add_explicit(&l->counter, 1, memory_order_relaxed);
    SPOOL__COUNT(rmw_counts);
}
/* n more counts at once, as n increments. */
static inline void spool__count_latch_add(spool__count_latch_t *l, size_t n)
{
    /* Relaxed: as in spool__count_latch_increment. */
    atomic_fetch_add_explicit(&l->counter, n, memory_order_relaxed);
    SPOOL__COUNT(rmw_counts);
}
void spool__count_latch_set(spool__count_latch_t *l);
/* n counts at once (n >= 1), as n calls of spool__count_latch_set. */
void spool__count_latch_set_n(spool__count_latch_t *l, size_t n);
#endif
