/*
 * Internal: Chase-Lev work-stealing deque (one per worker).
 *
 * The owner pushes and pops at the bottom; thieves steal at the top.  Memory
 * orders follow Le, Pop, Cohen and Zappa Nardelli, "Correct and Efficient
 * Work-Stealing for Weak Memory Models" (PPoPP 2013), with two changes:
 *  - every store to bottom is a release store (the paper uses a release
 *    fence before the store in push), so a thief that reads any value of
 *    bottom synchronizes with the owner's latest operation;
 *  - push reloads the buffer after growing it (the bug CDSChecker found).
 * Indices are signed 64-bit and never wrap in practice.  A grown-out buffer
 * may still be read by a thief that loaded it before the switch, so retired
 * buffers are kept on a list and freed with the deque (their total is below
 * the size of the live buffer).
 */
#ifndef SPOOL_DEQUE_H
#define SPOOL_DEQUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomics.h"
#include "job.h"

/* The orders and the fence of the protocol, macros so that the GenMC client
 * (model/genmc/chase_lev.c) can build mutants that weaken them. */
#ifndef SPOOL__DEQUE_PUBLISH_ORDER
#define SPOOL__DEQUE_PUBLISH_ORDER memory_order_release
#endif
#ifndef SPOOL__DEQUE_STEAL_BOTTOM_ORDER
#define SPOOL__DEQUE_STEAL_BOTTOM_ORDER memory_order_acquire
#endif
#ifndef SPOOL__DEQUE_POP_FENCED
#define SPOOL__DEQUE_POP_FENCED 1
#endif
#ifndef SPOOL__DEQUE_STEAL_FENCED
#define SPOOL__DEQUE_STEAL_FENCED 1
#endif

typedef struct spool__deque_buf spool__deque_buf_t;
struct spool__deque_buf {
    int64_t mask; /* capacity - 1; capacity is a power of two */
    spool__deque_buf_t *retired_next;
    _Atomic(spool__job_t *) slots[];
};

typedef struct spool__deque {
    /* Thieves' word on its own line; the owner's words on the next. */
    SPOOL__ALIGNED atomic_int_least64_t top;
    SPOOL__ALIGNED atomic_int_least64_t bottom;
    _Atomic(spool__deque_buf_t *) buf;
    spool__deque_buf_t *retired; /* owner only */
    /* Owner only: a value of top read with acquire, not newer than top.
     * Push checks for room against it and reloads top only when the buffer
     * looks full, so it does not pull the thieves' line on every push. */
    int64_t top_cache;
} spool__deque_t;

typedef enum {
    SPOOL__STEAL_EMPTY,
    SPOOL__STEAL_SUCCESS,
    SPOOL__STEAL_RETRY /* lost a race; the deque may still hold work */
} spool__steal_t;

/* Returns 0 or ENOMEM. */
int spool__deque_init(spool__deque_t *d);
void spool__deque_destroy(spool__deque_t *d);
/* Owner only: doubles the buffer.  Returns the new one, NULL if out of memory. */
spool__deque_buf_t *spool__deque_grow(spool__deque_t *d, int64_t top, int64_t bottom);

/*
 * Owner only.  Returns false (nothing pushed) if the buffer was full and
 * could not grow.
 */
/* Owner only: the buffer, grown if slot b is not free; NULL if it could not
 * grow. */
static inline spool__deque_buf_t *spool__deque_room(spool__deque_t *d, int64_t b)
{
    spool__deque_buf_t *buf = atomic_load_explicit(&d->buf, memory_order_relaxed);
    if (SPOOL__UNLIKELY(b - d->top_cache > buf->mask)) {
        /* Acquire pairs with the thieves' CAS on top in spool__deque_steal:
         * a slot below top was read by its thief before we overwrite it. */
        int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
        d->top_cache = t;
        if (b - t > buf->mask)
            buf = spool__deque_grow(d, t, b);
    }
    return buf;
}

/* Owner only: makes room for one push, so that the next push cannot fail.
 * False if the buffer could not grow. */
static inline bool spool__deque_reserve(spool__deque_t *d)
{
    return spool__deque_room(d, atomic_load_explicit(&d->bottom, memory_order_relaxed)) != NULL;
}

static inline bool spool__deque_push(spool__deque_t *d, spool__job_t *job)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    spool__deque_buf_t *buf = spool__deque_room(d, b);
    if (SPOOL__UNLIKELY(buf == NULL))
        return false;
    atomic_store_explicit(&buf->slots[b & buf->mask], job, memory_order_relaxed);
    /* Release pairs with the acquire load of bottom in spool__deque_steal:
     * a thief that sees the new bottom sees the slot and the job's fields. */
    atomic_store_explicit(&d->bottom, b + 1, SPOOL__DEQUE_PUBLISH_ORDER);
    return true;
}

/* Owner only, right after a push: did the deque hold no other job? */
static inline bool spool__deque_was_empty_before_push(spool__deque_t *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    return b - 1 <= atomic_load_explicit(&d->top, memory_order_relaxed);
}

/* Owner only.  The most recently pushed job, or NULL. */
static inline spool__job_t *spool__deque_pop(spool__deque_t *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    spool__deque_buf_t *buf = atomic_load_explicit(&d->buf, memory_order_relaxed);
    /* Release: see spool__deque_push (a thief reading this value of bottom
     * synchronizes with this owner's earlier pushes). */
    atomic_store_explicit(&d->bottom, b, memory_order_release);
    /* Pairs with the fence in spool__deque_steal: either the thief sees the
     * decremented bottom, or we see its incremented top. */
    if (SPOOL__DEQUE_POP_FENCED)
        spool__fence_seq_cst();
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (t > b) {
        /* Empty: restore.  Release as above. */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
        return NULL;
    }
    spool__job_t *job = atomic_load_explicit(&buf->slots[b & buf->mask], memory_order_relaxed);
    if (t == b) {
        /* Last job: race the thieves for it on top.  Seq-cst pairs with the
         * thieves' CAS on top (one of us wins). */
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            job = NULL;
        /* Release: as for every store to bottom (see spool__deque_push). */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    }
    return job;
}

/* Takes the oldest job into *out.  fenced: the owner may pop concurrently
 * (see spool__deque_steal); the caller passes a constant. */
static inline spool__steal_t spool__deque_take_oldest(spool__deque_t *d, spool__job_t **out,
                                                      bool fenced)
{
    /* Acquire pairs with the CAS on top by other thieves and the owner. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (fenced && SPOOL__DEQUE_STEAL_FENCED)
        /* Pairs with the fence in spool__deque_pop. */
        spool__fence_seq_cst();
    /* Acquire pairs with the release stores of bottom by the owner. */
    int64_t b = atomic_load_explicit(&d->bottom, SPOOL__DEQUE_STEAL_BOTTOM_ORDER);
    if (t >= b)
        return SPOOL__STEAL_EMPTY;
    /* Acquire pairs with the release store of buf in spool__deque_grow. */
    spool__deque_buf_t *buf = atomic_load_explicit(&d->buf, memory_order_acquire);
    spool__job_t *job = atomic_load_explicit(&buf->slots[t & buf->mask], memory_order_relaxed);
    /* Seq-cst pairs with the owner's CAS in pop and the other thieves'; its
     * release half pairs with the acquire load of top in push. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return SPOOL__STEAL_RETRY;
    *out = job;
    return SPOOL__STEAL_SUCCESS;
}

/* Any thread.  Takes the oldest job into *out. */
static inline spool__steal_t spool__deque_steal(spool__deque_t *d, spool__job_t **out)
{
    return spool__deque_take_oldest(d, out, true);
}

/* Any thread, on a deque whose owner pushes but never pops (a job FIFO):
 * takes the oldest job.  With no pop there is no race with the owner for the
 * last job, and the thieves' fence, which pairs only with pop's, is not
 * needed; thieves still race each other through the CAS on top. */
static inline spool__steal_t spool__deque_take_front(spool__deque_t *d, spool__job_t **out)
{
    return spool__deque_take_oldest(d, out, false);
}

/* Any thread; a snapshot that may be stale by the time it returns. */
static inline int64_t spool__deque_len(spool__deque_t *d)
{
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    return b > t ? b - t : 0;
}

#endif
