/* The split Chase-Lev deque: the slow paths (see deque.h and deque.md). */
#include "deque/deque.h"

#include "platform/test_hooks.h"

#include <errno.h>
#include <stdlib.h>

/* A model checker's client sets a smaller one, to reach growth. */
#ifndef SPOOL__DEQUE_INITIAL_CAPACITY
#define SPOOL__DEQUE_INITIAL_CAPACITY 256
#endif

static spool__deque_buf_t *buf_new(int64_t capacity)
{
    spool__deque_buf_t *buf = malloc(sizeof *buf + (size_t)capacity * (sizeof(_Atomic(
                                                      spool__job_t *)) +
                                                  sizeof(atomic_uint_least64_t)));
    if (buf == NULL)
        return NULL;
    buf->mask = capacity - 1;
    buf->retired_next = NULL;
    /* Tags are set at publication; zero until then, so that a growth's
     * copy of a private job's slot reads a value. */
    atomic_uint_least64_t *tags = spool__deque_buf_tags(buf);
    for (int64_t i = 0; i < capacity; i++)
        atomic_init(&tags[i], 0);
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
    atomic_init(&d->asked, 0);
    atomic_init(&d->floor, 0);
    atomic_init(&d->buf, buf);
    d->retired = NULL;
    d->slots = buf->slots;
    d->tags = spool__deque_buf_tags(buf);
    d->mask = buf->mask;
    d->lap = 0;
    d->base = (uintptr_t)buf->slots;
    atomic_init(&d->limit, SPOOL__DEQUE_ALERT); /* no public job yet */
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
    atomic_uint_least64_t *old_tags = spool__deque_buf_tags(old), *tags = spool__deque_buf_tags(buf);
    for (int64_t i = top; i < bottom; i++) {
        spool__job_t *job = atomic_load_explicit(&old->slots[i & old->mask], memory_order_relaxed);
        atomic_store_explicit(&buf->slots[i & buf->mask], job, memory_order_relaxed);
        atomic_store_explicit(&tags[i & buf->mask],
                              atomic_load_explicit(&old_tags[i & old->mask], memory_order_relaxed),
                              memory_order_relaxed);
    }
    /* Release pairs with the acquire load of buf in spool__deque_steal: a
     * thief that sees the new buffer sees the copied slots. */
    atomic_store_explicit(&d->buf, buf, memory_order_release);
    d->slots = buf->slots;
    d->tags = tags;
    d->mask = buf->mask;
    old->retired_next = d->retired;
    d->retired = old;
    return buf;
}

/* The window becomes the lap that starts at index lap (a multiple of the
 * capacity). */
static void set_window(spool__deque_t *d, int64_t lap)
{
    d->lap = lap;
    /* Unsigned, so that it wraps instead of overflowing: base + i * size is
     * the slot of i for every i in [lap, lap + capacity). */
    d->base = (uintptr_t)d->slots - (uintptr_t)lap * sizeof *d->slots;
}

void spool__deque_window_down(spool__deque_t *d, int64_t bottom)
{
    set_window(d, bottom & ~d->mask);
    /* limit must not pass the window's end: the alert, so that the next
     * push takes the slow path, which sets the bound (and takes a thief's
     * alert back as it always does).  An exchange, not a store: it keeps a
     * thief's alert stored before it in that thief's release sequence, so
     * that the slow push's acquire exchange still synchronizes with the
     * thief.  Relaxed: it orders nothing itself. */
    (void)atomic_exchange_explicit(&d->limit, SPOOL__DEQUE_ALERT, memory_order_relaxed);
    spool__deque_floor_follows_split(d);
}

bool spool__deque_make_room(spool__deque_t *d, int64_t b)
{
    /* Acquire pairs with the thieves' CAS on top in spool__deque_steal: a
     * slot below top was read by its thief before we overwrite it. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (b >= t + d->mask + 1 && spool__deque_grow(d, t, b) == NULL)
        return false;
    int64_t lap = d->lap;
    set_window(d, b & ~d->mask);
    /* The buffer's room, and no further than the window's end. */
    int64_t limit = t + d->mask + 1;
    if (limit > d->lap + d->mask + 1)
        limit = d->lap + d->mask + 1;
    /* An exchange, so that an alert a thief raised after the one we take back
     * is not lost but replaces the new bound.  Acquire pairs with the
     * thieves' release store of the alert (spool__deque_take_oldest): if we
     * take one back, the caller's next look at top (wants_publish) sees that
     * thief's steal and publishes. */
    (void)atomic_exchange_explicit(&d->limit, limit, memory_order_acquire);
    if (d->lap != lap)
        spool__deque_floor_follows_split(d); /* up to the window's start */
    return true;
}

/* The public pop's two ends that leave the public part empty: split and
 * bottom back to b + 1 (so floor and the window need no change), and the
 * alert up, so that the next push publishes (rule 1).  Only the owner takes
 * the alert back, and it is the owner here, so relaxed (it has seen top at
 * b + 1 or above, so its next look at top does too). */
static void public_part_emptied(spool__deque_t *d, int64_t b)
{
    spool__deque_set_split(d, b + 1, memory_order_release);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    atomic_store_explicit(&d->limit, SPOOL__DEQUE_ALERT, memory_order_relaxed);
}

spool__job_t *spool__deque_pop_public(spool__deque_t *d, int64_t b)
{
    /* No private job: bottom == split, and b is the newest public job's
     * index, if there is one. */
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    spool__deque_set_split(d, b, memory_order_release);
    /* Pairs with the fence in spool__deque_take_oldest: either the thief
     * sees the lowered split, or we see its incremented top. */
    spool__fence_seq_cst();
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (t > b) {
        public_part_emptied(d, b); /* it was empty */
        return NULL;
    }
    spool__job_t *job = atomic_load_explicit(&d->slots[b & d->mask], memory_order_relaxed);
    if (t < b) {
        /* split stays one lower; floor follows it, and the window too if
         * bottom left it. */
        if (!spool__deque_window_follows(d, b))
            spool__deque_floor_follows_split(d);
        return job;
    }
    /* Last job: race the thieves for it on top.  Seq-cst pairs with the
     * thieves' CAS on top (one of us wins). */
    SPOOL__COUNT(rmw_deques);
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        job = NULL;
    public_part_emptied(d, b);
    return job;
}
