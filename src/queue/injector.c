/* The injector (see injector.h). */
#include "queue/injector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/stats.h"

#define SPOOL__INJECTOR_INITIAL_CAPACITY 64

int spool__injector_init(spool__injector_t *inj)
{
    inj->ring = malloc(SPOOL__INJECTOR_INITIAL_CAPACITY * sizeof *inj->ring);
    if (inj->ring == NULL)
        return ENOMEM;
    int err = pthread_mutex_init(&inj->lock, NULL);
    if (err != 0) {
        free(inj->ring);
        return err;
    }
    inj->head = 0;
    inj->count = 0;
    inj->mask = SPOOL__INJECTOR_INITIAL_CAPACITY - 1;
    atomic_init(&inj->len, 0);
    return 0;
}

void spool__injector_destroy(spool__injector_t *inj)
{
    pthread_mutex_destroy(&inj->lock);
    free(inj->ring);
}

/* Lock held.  Doubles the ring, unrolling it so that head becomes 0. */
static int grow(spool__injector_t *inj)
{
    size_t capacity = inj->mask + 1;
    spool__job_t **ring = malloc(2 * capacity * sizeof *ring);
    if (ring == NULL)
        return ENOMEM;
    size_t first = capacity - inj->head; /* jobs from head to the ring's end */
    memcpy(ring, inj->ring + inj->head, first * sizeof *ring);
    memcpy(ring + first, inj->ring, inj->head * sizeof *ring);
    free(inj->ring);
    inj->ring = ring;
    inj->head = 0;
    inj->mask = 2 * capacity - 1;
    return 0;
}

int spool__injector_push(spool__injector_t *inj, spool__job_t *job, bool *was_empty)
{
    SPOOL__COUNT(rmw_queues); /* the lock */
    pthread_mutex_lock(&inj->lock);
    if (inj->count > inj->mask) {
        int err = grow(inj);
        if (err != 0) {
            pthread_mutex_unlock(&inj->lock);
            return err;
        }
    }
    inj->ring[(inj->head + inj->count) & inj->mask] = job;
    *was_empty = inj->count == 0;
    inj->count++;
    /* Release pairs with the acquire load in spool__injector_is_empty (the
     * sleep protocol's final check reads this after its seq-cst fence). */
    atomic_store_explicit(&inj->len, inj->count, memory_order_release);
    pthread_mutex_unlock(&inj->lock);
    return 0;
}

spool__job_t *spool__injector_pop(spool__injector_t *inj)
{
    if (spool__injector_is_empty(inj))
        return NULL;
    spool__job_t *job = NULL;
    SPOOL__COUNT(rmw_queues); /* the lock */
    pthread_mutex_lock(&inj->lock);
    if (inj->count > 0) {
        job = inj->ring[inj->head];
        inj->head = (inj->head + 1) & inj->mask;
        inj->count--;
        /* Release: same pairing as in push. */
        atomic_store_explicit(&inj->len, inj->count, memory_order_release);
    }
    pthread_mutex_unlock(&inj->lock);
    return job;
}

/* Lock held: the position (from head) of the oldest job keep accepts, or
 * count if none. */
static size_t find_kept(spool__injector_t *inj, spool__injector_keep_fn keep, const void *arg)
{
    size_t i = 0;
    while (i < inj->count && !keep(inj->ring[(inj->head + i) & inj->mask], arg))
        i++;
    return i;
}

spool__job_t *spool__injector_take_if(spool__injector_t *inj, spool__injector_keep_fn keep,
                                      const void *arg)
{
    if (spool__injector_is_empty(inj))
        return NULL;
    spool__job_t *job = NULL;
    SPOOL__COUNT(rmw_queues); /* the lock */
    pthread_mutex_lock(&inj->lock);
    size_t i = find_kept(inj, keep, arg);
    if (i < inj->count) {
        job = inj->ring[(inj->head + i) & inj->mask];
        /* The older jobs move up one slot, so that the order stays. */
        for (; i > 0; i--)
            inj->ring[(inj->head + i) & inj->mask] = inj->ring[(inj->head + i - 1) & inj->mask];
        inj->head = (inj->head + 1) & inj->mask;
        inj->count--;
        /* Release pairs with the acquire load in spool__injector_is_empty,
         * as push's does. */
        atomic_store_explicit(&inj->len, inj->count, memory_order_release);
    }
    pthread_mutex_unlock(&inj->lock);
    return job;
}

bool spool__injector_has_if(spool__injector_t *inj, spool__injector_keep_fn keep,
                            const void *arg)
{
    if (spool__injector_is_empty(inj))
        return false;
    SPOOL__COUNT(rmw_queues); /* the lock */
    pthread_mutex_lock(&inj->lock);
    bool found = find_kept(inj, keep, arg) < inj->count;
    pthread_mutex_unlock(&inj->lock);
    return found;
}
