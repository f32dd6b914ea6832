/* Waits that run no task (omp.md, "Waits"): a team's thread spins, then
 * parks in its team (barrier.c); a thread in no team (level 0: a detached
 * task's event, a target region's end) registers in one list of the
 * process's own under a mutex, since no team holds its park.  Either way
 * the waiter registers, then looks at its condition (seq-cst loads), and a
 * waker looks for registrations after its seq-cst write: the store-buffer
 * pair W1. */
#include <limits.h>
#include <pthread.h>

#include "barrier.h"
#include "env.h"
#include "team.h"
#include "wait.h"

void spool__omp_wait(spool__omp_team_t *team, unsigned id, const void *obj,
                     spool__omp_ready_fn ready, const void *arg)
{
    if (team == NULL) {
        spool__omp_wait_outside(obj, ready, arg);
        return;
    }
    unsigned long spin = spool__omp_spin_count(team->nthreads);
    for (unsigned long i = 0; !ready(arg); i++)
        if (i < spin)
            spool__spin_round(i);
        else
            spool__omp_park(team, id, obj, false, NULL, ready, arg);
}

/* ---- threads in no team ------------------------------------------------------------- */

typedef struct outside {
    const void *obj;
    _Atomic int parked; /* 1 while registered and not claimed */
    spool__park_t park;
    struct outside *next, *prev;
} outside_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static outside_t *waiters;              /* guarded by lock */
static _Atomic unsigned long registered; /* waiters in the list */

static void unlink_waiter(outside_t *w)
{
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        waiters = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
}

void spool__omp_wait_outside(const void *obj, spool__omp_ready_fn ready, const void *arg)
{
    unsigned long spin = spool__omp_spin_count(1);
    for (unsigned long i = 0; !ready(arg); i++) {
        if (i < spin) {
            spool__spin_round(i);
            continue;
        }
        outside_t w = {.obj = obj, .prev = NULL};
        if (spool__park_init(&w.park) != 0)
            spool__omp_fatal("cannot set up a wait");
        atomic_init(&w.parked, 1);
        pthread_mutex_lock(&lock);
        w.next = waiters;
        if (waiters != NULL)
            waiters->prev = &w;
        waiters = &w;
        pthread_mutex_unlock(&lock);
        /* Seq-cst increment, then seq-cst loads (ready): pairs with a
         * waker's seq-cst write and its seq-cst load of registered (W1). */
        atomic_fetch_add_explicit(&registered, 1, memory_order_seq_cst);
        /* Ready meanwhile: unless a waker claimed us (then it sets our
         * park), we are done.  Acq_rel: of the waiter and its wakers, the
         * one whose exchange reads 1 owns the wake-up. */
        if (!ready(arg) || atomic_exchange_explicit(&w.parked, 0, memory_order_acq_rel) == 0)
            spool__park_wait(&w.park);
        /* Relaxed: a count that only makes the wakers look. */
        atomic_fetch_sub_explicit(&registered, 1, memory_order_relaxed);
        pthread_mutex_lock(&lock);
        unlink_waiter(&w);
        pthread_mutex_unlock(&lock);
        spool__park_destroy(&w.park);
    }
}

void spool__omp_wake_outside(const void *obj)
{
    /* Seq-cst load after the caller's seq-cst write (W1). */
    if (atomic_load_explicit(&registered, memory_order_seq_cst) == 0)
        return;
    /* Under the lock: a waiter unlinks itself under it before its park
     * goes. */
    pthread_mutex_lock(&lock);
    for (outside_t *w = waiters; w != NULL; w = w->next)
        /* Acq_rel: as the waiter's exchange. */
        if (w->obj == obj && atomic_load_explicit(&w->parked, memory_order_relaxed) != 0 &&
            atomic_exchange_explicit(&w->parked, 0, memory_order_acq_rel) != 0)
            spool__park_set(&w->park);
    pthread_mutex_unlock(&lock);
}
