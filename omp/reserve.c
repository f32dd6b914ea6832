/* Reserve threads (reserve.h; omp.md, "Teams"): plain threads, each bound
 * to a member slot of a team, that wait in spool's park for that member's
 * implicit task, run it, and wait again.  They exist only where dyn-var
 * false asks for more threads than the pool has idle, and stay for the next
 * such region, as libgomp's do.
 *
 * The hand-over is the barrier's registration (omp.md, B1 and B2) with one
 * waiter: the leader writes the work, then moves `posted` on (seq-cst) and
 * claims a registered waiter with an exchange of `parked`; the thread
 * registers (`parked` 1, seq-cst), then looks at `posted` (seq-cst) and
 * takes its registration back with the same exchange if work came.  Of the
 * two exchanges exactly one reads 1: that one owns the wake-up. */
#include "reserve.h"

#include <pthread.h>
#include <stdlib.h>

#include "omp_impl.h"

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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static spool__omp_reserve_t *free_list; /* guarded by lock */
/* fork()s seen: a reserve of an older generation has no thread. */
static unsigned long generation;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void atfork_child(void)
{
    /* The parent's reserve threads do not exist here: their records are
     * dropped (a team's bound ones by their generation). */
    pthread_mutex_init(&lock, NULL);
    free_list = NULL;
    generation++;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* The reserve thread waits until more works are posted than the done it
 * took. */
static void await_work(spool__omp_reserve_t *r, unsigned long done)
{
    /* Acquire (each load) pairs with the poster's seq-cst store: the work's
     * fields are visible. */
    for (unsigned i = 0; i < 1000; i++) {
        if (atomic_load_explicit(&r->posted, memory_order_acquire) != done)
            return;
        spool__omp_relax();
    }
    while (atomic_load_explicit(&r->posted, memory_order_acquire) == done) {
        if (spool__park_init(&r->park) != 0)
            spool__omp_fatal("cannot set up a reserve thread's wait");
        /* Seq-cst store, then seq-cst load: pairs with the poster's
         * seq-cst store of posted and exchange of parked (the store-buffer
         * pair: either we see the work, or the poster sees us parked). */
        atomic_store_explicit(&r->parked, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&r->posted, memory_order_seq_cst) == done ||
            /* Work came: unless the poster claimed us (then it sets the
             * park, which we must wait for), we are done.  Acq_rel: as the
             * poster's. */
            atomic_exchange_explicit(&r->parked, 0, memory_order_acq_rel) == 0)
            spool__park_wait(&r->park);
        spool__park_destroy(&r->park);
    }
}

static void *reserve_main(void *p)
{
    spool__omp_reserve_t *r = p;
    for (unsigned long done = 0;; done++) {
        await_work(r, done);
        r->fn(r->arg);
    }
    return NULL;
}

static void post(spool__omp_reserve_t *r, void (*fn)(void *), void *arg)
{
    r->fn = fn;
    r->arg = arg;
    /* Seq-cst: the store-buffer pair with await_work (above); a release of
     * the work's fields to the thread's acquire loads.  Only the team's
     * leader posts, after the last work's region ended. */
    atomic_store_explicit(&r->posted, atomic_load_explicit(&r->posted, memory_order_relaxed) + 1,
                          memory_order_seq_cst);
    /* Acq_rel: acquire pairs with the thread's seq-cst store of parked (its
     * park is set up); of the thread and us, the one whose exchange reads 1
     * owns the wake-up. */
    if (atomic_exchange_explicit(&r->parked, 0, memory_order_acq_rel) == 1)
        spool__park_set(&r->park);
}

static spool__omp_reserve_t *create(void (*fn)(void *), void *arg)
{
    spool__omp_reserve_t *r = aligned_alloc(SPOOL_OMP_LINE, sizeof *r);
    if (r == NULL)
        return NULL;
    atomic_init(&r->posted, 1);
    atomic_init(&r->parked, 0);
    r->fn = fn;
    r->arg = arg;
    r->generation = generation;
    r->next = NULL;
    pthread_attr_t attr;
    pthread_t t;
    int err = pthread_attr_init(&attr);
    if (err == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (spool__omp_env.stack_size != 0)
            pthread_attr_setstacksize(&attr, spool__omp_env.stack_size);
        err = pthread_create(&t, &attr, reserve_main, r);
        pthread_attr_destroy(&attr);
    }
    if (err != 0) {
        free(r);
        return NULL;
    }
    return r;
}

bool spool__omp_reserve_run(spool__omp_reserve_t **slot, void (*fn)(void *), void *arg)
{
    spool__omp_reserve_t *r = *slot;
    if (r != NULL && r->generation == generation) {
        post(r, fn, arg);
        return true;
    }
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&lock);
    r = free_list;
    if (r != NULL)
        free_list = r->next;
    pthread_mutex_unlock(&lock);
    if (r != NULL)
        post(r, fn, arg);
    else if ((r = create(fn, arg)) == NULL)
        return false;
    *slot = r;
    return true;
}

void spool__omp_reserve_release(spool__omp_reserve_t **slots, unsigned n)
{
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < n; i++) {
        spool__omp_reserve_t *r = slots[i];
        slots[i] = NULL;
        if (r == NULL || r->generation != generation)
            continue;
        r->next = free_list;
        free_list = r;
    }
    pthread_mutex_unlock(&lock);
}
