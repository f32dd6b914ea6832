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

#include "base.h"
#include "reserve_post.h"

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

static void *reserve_main(void *p)
{
    spool__omp_reserve_t *r = p;
    for (unsigned long done = 0;; done++) {
        spool__omp_reserve_await(r, done);
        r->fn(r->arg);
    }
    return NULL;
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
        spool__omp_reserve_post(r, fn, arg);
        return true;
    }
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&lock);
    r = free_list;
    if (r != NULL)
        free_list = r->next;
    pthread_mutex_unlock(&lock);
    if (r != NULL)
        spool__omp_reserve_post(r, fn, arg);
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
