/* Latches: the out-of-line parts (see latch.h).  A count latch's cold wait
 * runs its owner's wait loop: scheduler/latch_set.c. */
#include "sleep/latch.h"

#include <sched.h>

#include "platform/tuning.h"
#include "sleep/sleep.h"

void spool__spin_latch_set(spool__spin_latch_t *l)
{
    /* Copy what we need first: once set, the owner may return and free l. */
    spool__sleep_t *s = l->sleep;
    unsigned target = l->target;
    if (l->cross) {
        /* The owner's pool may also be destroyed once it returns: hold its
         * sleep state (sleep.h). */
        void *keeper = s->keeper;
        void (*release)(void *) = s->release;
        s->hold(keeper);
        if (spool__core_latch_set(&l->core))
            spool__sleep_notify_worker_latch_is_set(s, target);
        release(keeper);
    } else if (spool__core_latch_set(&l->core)) {
        spool__sleep_notify_worker_latch_is_set(s, target);
    }
}

int spool__lock_latch_init(spool__lock_latch_t *l)
{
    int err = pthread_mutex_init(&l->lock, NULL);
    if (err != 0)
        return err;
    err = pthread_cond_init(&l->cond, NULL);
    if (err != 0) {
        pthread_mutex_destroy(&l->lock);
        return err;
    }
    l->is_set = false;
    atomic_init(&l->state, SPOOL__LOCK_LATCH_UNSET);
    return 0;
}

void spool__lock_latch_destroy(spool__lock_latch_t *l)
{
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
}

void spool__lock_latch_set(spool__lock_latch_t *l)
{
    /* Release pairs with the acquire loads in spool__lock_latch_wait: a
     * waiter that sees SET sees everything done before the set.  Acquire
     * orders the wake-up below after the waiter's BLOCKING. */
    if (atomic_exchange_explicit(&l->state, SPOOL__LOCK_LATCH_SET, memory_order_acq_rel) !=
        SPOOL__LOCK_LATCH_BLOCKING)
        return; /* the waiter will see SET without us: l may be gone now */
    /* The waiter holds the mutex from its CAS to the condvar wait and needs
     * it to see is_set and return, so it cannot free l before we unlock;
     * after that we do not touch l. */
    pthread_mutex_lock(&l->lock);
    l->is_set = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

/* Pauses (then rounds of sched_yield) before an outside waiter blocks
 * (tuning.h's lock_latch_*): a short job ends without the futex round trip
 * (bench/'s small-loops workload, called from outside, shows its cost). */

static bool lock_latch_is_set(spool__lock_latch_t *l)
{
    /* Acquire pairs with the exchange in spool__lock_latch_set. */
    return atomic_load_explicit(&l->state, memory_order_acquire) == SPOOL__LOCK_LATCH_SET;
}

void spool__lock_latch_wait(spool__lock_latch_t *l, bool woke)
{
    /* If our job woke a worker, yield once before spinning: the wakee may
     * have been queued on this CPU (the scheduler places a wakee beside its
     * waker), where the spin would keep it from running (bench/'s wake
     * workload shows the latency).  A job taken by a worker that was awake
     * needs no yield, which would only give the CPU away between short
     * calls (bench/'s small-loops, installed per call). */
    if (lock_latch_is_set(l))
        return;
    if (woke)
        sched_yield();
    /* The spin looks after every pause: the line stays in this core's
     * cache until the setter writes it, and a short job's end is seen at
     * once, not at the end of a batch of pauses. */
    for (unsigned i = 0; i < spool__tuning.lock_latch_spins; i++) {
        if (lock_latch_is_set(l))
            return;
        spool__cpu_relax();
    }
    for (unsigned round = 0; round < spool__tuning.lock_latch_yields; round++) {
        if (lock_latch_is_set(l))
            return;
        sched_yield();
    }
    pthread_mutex_lock(&l->lock);
    int expected = SPOOL__LOCK_LATCH_UNSET;
    /* Acq_rel: on failure (SET) acquire as in lock_latch_is_set; on success
     * the setter's exchange reads BLOCKING and takes the mutex. */
    if (atomic_compare_exchange_strong_explicit(&l->state, &expected, SPOOL__LOCK_LATCH_BLOCKING,
                                                memory_order_acq_rel, memory_order_acquire)) {
        while (!l->is_set)
            pthread_cond_wait(&l->cond, &l->lock);
    }
    pthread_mutex_unlock(&l->lock);
}

void spool__count_latch_set(spool__count_latch_t *l)
{
    spool__count_latch_set_n(l, 1);
}

void spool__count_latch_set_n(spool__count_latch_t *l, size_t n)
{
    /* Acq_rel pairs with the other decrements: the one that reaches zero has
     * seen every counted job finish, and its latch set publishes that. */
    SPOOL__COUNT(rmw_counts);
    if (atomic_fetch_sub_explicit(&l->counter, n, memory_order_acq_rel) != n)
        return;
    if (l->blocking)
        spool__lock_latch_set(&l->lock);
    else
        spool__spin_latch_set(&l->spin);
}
