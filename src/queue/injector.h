/*
 * Internal: the injector, an unbounded multi-producer multi-consumer FIFO of
 * jobs submitted from outside the pool.
 *
 * A mutex guards a growable ring.  Outside submission is the slow path
 * (the submitter blocks or allocates anyway), while idle workers poll the
 * injector on every search round, so emptiness is mirrored in an atomic
 * length that is read without the lock.
 */
#ifndef SPOOL_INJECTOR_H
#define SPOOL_INJECTOR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "platform/atomics.h"
#include "job/job.h"

typedef struct spool__injector {
    SPOOL__ALIGNED atomic_size_t len; /* mirror of count, for lock-free checks */
    SPOOL__ALIGNED pthread_mutex_t lock;
    spool__job_t **ring; /* guarded by lock, like head, count and mask */
    size_t head;
    size_t count;
    size_t mask;
} spool__injector_t;

/* Returns 0 or ENOMEM. */
int spool__injector_init(spool__injector_t *inj);
void spool__injector_destroy(spool__injector_t *inj);
/* Returns 0 or ENOMEM (nothing queued).  *was_empty: no job was queued before. */
int spool__injector_push(spool__injector_t *inj, spool__job_t *job, bool *was_empty);
/* The oldest job, or NULL. */
spool__job_t *spool__injector_pop(spool__injector_t *inj);

/* A test of a queued job, made under the injector's lock (the job is alive
 * while it is queued). */
typedef bool (*spool__injector_keep_fn)(const spool__job_t *job, const void *arg);

/* Out of order, for an isolated waiter: the oldest job that keep accepts,
 * taken out of the queue (the others keep their order), or NULL. */
spool__job_t *spool__injector_take_if(spool__injector_t *inj, spool__injector_keep_fn keep,
                                      const void *arg);
/* Whether a queued job is one that keep accepts. */
bool spool__injector_has_if(spool__injector_t *inj, spool__injector_keep_fn keep,
                            const void *arg);

/* Any thread; a hint (a relaxed load, stale by the time it returns): how
 * many jobs are queued. */
static inline size_t spool__injector_len_hint(spool__injector_t *inj)
{
    return (size_t)atomic_load_explicit(&inj->len, memory_order_relaxed);
}

static inline bool spool__injector_is_empty(spool__injector_t *inj)
{
    /* Acquire pairs with the release stores of len in push and pop. */
    return atomic_load_explicit(&inj->len, memory_order_acquire) == 0;
}

#endif
