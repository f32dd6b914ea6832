/* The split Chase-Lev deque: the slow paths (see deque.h and deque.md). */
#include "deque.h"

#include "test_hooks.h"

#include <errno.h>
#include <stdlib.h>

/* A model checker's client sets a smaller one, to reach growth. */
#ifndef SPOOL__DEQUE_INITIAL_CAPACITY
#define SPOOL__DEQUE_INITIAL_CAPACITY 256
#endif

static spool__deque_buf_t *buf_new(int64_t capacity)
{
    spool__deque_buf_t *buf =
        malloc(sizeof *buf + (size_t)capacity * sizeof(_Atomic(spool__job_t *)));
    if (buf == NULL)
        return NULL;
    buf->mask = capacity - 1;
    buf->retired_next = NULL;
    return buf;
}

int spool__deque_init(spool__deque_t *d)
{
    spool__deque_buf_t *buf = buf_new(SPOOL__DEQUE_INITIAL_CAPACITY);
    if (buf == NULL)
        return ENOMEM;
    atomic_init(&d->top, 0);
    atomic_init(&d->split, 0);
    d->owner_split = 0;
    atomic_init(&d->bottom, 0);
    atomic_init(&d->demand, 0);
    atomic_init(&d->buf, buf);
    d->retired = NULL;
    d->slots = buf->slots;
    d->mask = buf->mask;
    d->limit = buf->mask + 1;
    return 0;
}

void spool__deque_destroy(spool__deque_t *d)
{
    free(atomic_load_explicit(&d->buf, memory_order_relaxed));
    while (d->retired != NULL) {
        spool__deque_buf_t *next = d->retired->retired_next;
        free(d->retired);
        d->retired = next;
    }
}

spool__deque_buf_t *spool__deque_grow(spool__deque_t *d, int64_t top, int64_t bottom)
{
    spool__deque_buf_t *old = atomic_load_explicit(&d->buf, memory_order_relaxed);
    if (spool__test_deque_grow_fails())
        return NULL;
    spool__deque_buf_t *buf = buf_new(2 * (old->mask + 1));
    if (buf == NULL)
        return NULL;
    for (int64_t i = top; i < bottom; i++) {
        spool__job_t *job = atomic_load_explicit(&old->slots[i & old->mask], memory_order_relaxed);
        atomic_store_explicit(&buf->slots[i & buf->mask], job, memory_order_relaxed);
    }
    /* Release pairs with the acquire load of buf in spool__deque_steal: a
     * thief that sees the new buffer sees the copied slots. */
    atomic_store_explicit(&d->buf, buf, memory_order_release);
    d->slots = buf->slots;
    d->mask = buf->mask;
    d->limit = top + buf->mask + 1;
    old->retired_next = d->retired;
    d->retired = old;
    return buf;
}

spool__job_t *spool__deque_pop_public(spool__deque_t *d, int64_t b)
{
    /* No private job: bottom == split, and b is the newest public job's
     * index, if there is one. */
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    spool__deque_set_split(d, b, memory_order_release);
    /* Pairs with the fence in spool__deque_take_oldest: either the thief
     * sees the lowered split, or we see its incremented top. */
    if (SPOOL__DEQUE_POP_FENCED)
        spool__fence_seq_cst();
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (t > b) {
        /* Empty: restore. */
        spool__deque_set_split(d, b + 1, memory_order_release);
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    spool__job_t *job = atomic_load_explicit(&d->slots[b & d->mask], memory_order_relaxed);
    if (t == b) {
        /* Last job: race the thieves for it on top.  Seq-cst pairs with the
         * thieves' CAS on top (one of us wins). */
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            job = NULL;
        spool__deque_set_split(d, b + 1, memory_order_release);
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    return job;
}
