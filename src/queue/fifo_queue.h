/*
 * Internal: the queue of a job FIFO (job_fifo.h; fifo.md).  One thread, its owner, pushes calls (fn, arg) at the back; any
 * thread that holds a reference to a call in it (a FIFO ticket's) takes the
 * front one.  A call is 16 bytes in a slot, not a job block of its own.
 *
 * Slots live in a list of segments, each a ring (Chase-Lev's buffer with
 * 16-byte slots).  The owner pushes into the newest segment while its ring
 * has room, reusing slots whose calls were taken, and links a new segment
 * (twice as large, up to a cap) when it has none: no copy, so a burst of a
 * million calls costs 16 MB, not the 32 of a doubled and copied ring.
 * Takers claim the front with a CAS, after reading the slot (a slot
 * overwritten meanwhile makes the CAS fail); one holding several
 * references may claim as many calls with one CAS (a batch).  Drained
 * segments are freed when the owner finds the queue empty: every reference
 * is then spent, so no taker can be reading one.
 *
 * Takes are only ever made with a reference, so a take always finds a call;
 * what makes the call's slot visible to the taker is the reference's own
 * hand-over (the ticket's push on a deque, or the owner itself) and the
 * release and acquire on front between takers, not the push here.
 */
#ifndef SPOOL_FIFO_QUEUE_H
#define SPOOL_FIFO_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "platform/stats.h"

typedef void (*spool__fifo_fn_t)(void);

typedef struct spool__fifo_call {
    spool__fifo_fn_t fn;
    void *arg;
} spool__fifo_call_t;

typedef struct spool__fifo_seg spool__fifo_seg_t;
struct spool__fifo_seg {
    int64_t start; /* index of its first call; set before it is linked */
    int64_t mask;  /* capacity - 1; capacity is a power of two */
    _Atomic(spool__fifo_seg_t *) next; /* the newer segment; NULL while newest */
    struct {
        /* Atomic: a taker may read a slot that the owner is overwriting
         * (that taker's CAS then fails). */
        _Atomic(spool__fifo_fn_t) fn;
        _Atomic(void *) arg;
    } slots[];
};

typedef struct spool__fifo_queue {
    /* Takers' CAS word: calls below front are taken. */
    SPOOL__ALIGNED atomic_int_least64_t front;
    /* A segment at or before the one holding front (segments before it are
     * drained); takers move it on, the owner resets it when it frees. */
    _Atomic(spool__fifo_seg_t *) head;
    /* The owner's line. */
    SPOOL__ALIGNED int64_t back; /* calls below back were pushed */
    int64_t limit;               /* back may grow up to here in tail */
    spool__fifo_seg_t *tail;     /* the newest segment */
    spool__fifo_seg_t *oldest;   /* the list of segments still allocated */
} spool__fifo_queue_t;

/* Returns 0 or ENOMEM. */
int spool__fifo_queue_init(spool__fifo_queue_t *q);
void spool__fifo_queue_destroy(spool__fifo_queue_t *q);
/* Owner only: makes room for the call at back, in tail's ring or in a new
 * segment, and frees drained segments if the queue is empty.  False if a
 * segment was needed and could not be allocated. */
bool spool__fifo_queue_make_room(spool__fifo_queue_t *q);

/* Owner only.  False (nothing pushed) if out of memory.  Orders nothing by
 * itself: see the header comment. */
static inline bool spool__fifo_queue_push(spool__fifo_queue_t *q, spool__fifo_fn_t fn, void *arg)
{
    int64_t b = q->back;
    if (SPOOL__UNLIKELY(b >= q->limit) && !spool__fifo_queue_make_room(q))
        return false;
    spool__fifo_seg_t *s = q->tail;
    atomic_store_explicit(&s->slots[b & s->mask].fn, fn, memory_order_relaxed);
    atomic_store_explicit(&s->slots[b & s->mask].arg, arg, memory_order_relaxed);
    q->back = b + 1;
    return true;
}

/* The front: loads front (into *t) and finds the segment holding it, moving
 * head on to it; *next is that segment's next as loaded, NULL if it was the
 * newest. */
static inline spool__fifo_seg_t *spool__fifo_queue_front_segment(spool__fifo_queue_t *q,
                                                                  int64_t *t,
                                                                  spool__fifo_seg_t **next)
{
    /* Acquire pairs with the release CAS on front of every earlier taker
     * (front changes only by RMWs, so *t is in each one's release
     * sequence).  Of the *t references spent and ours, one was made after
     * call *t was pushed: ours, or one whose taker we synchronize with here;
     * either way we see call *t's slot.  (A batch of k: of the *t + k, the
     * newest was made after call *t + k - 1 was pushed, so we see all k.) */
    *t = atomic_load_explicit(&q->front, memory_order_acquire);
    /* Acquire pairs with the release CAS below (a taker moving head on) and
     * the owner's release store when it frees: we see the segment's start
     * and mask. */
    spool__fifo_seg_t *h = atomic_load_explicit(&q->head, memory_order_acquire);
    spool__fifo_seg_t *s = h;
    for (;;) {
        /* Acquire pairs with the release store of next in
         * spool__fifo_queue_make_room: a taker that finds the newer segment
         * sees its start and mask. */
        *next = atomic_load_explicit(&s->next, memory_order_acquire);
        if (*next == NULL || *t < (*next)->start)
            break;
        s = *next;
    }
    if (SPOOL__UNLIKELY(s != h)) {
        SPOOL__COUNT(rmw_queues);
        /* Before our CAS on front, while our reference keeps the owner from
         * freeing (it frees only when every reference is spent).  Release
         * pairs with the acquire load of head above. */
        atomic_compare_exchange_strong_explicit(&q->head, &h, s, memory_order_release,
                                                memory_order_relaxed);
    }
    return s;
}

/* One try of spool__fifo_queue_take_n: the front calls, at most max (>= 1)
 * and no further than the end of the segment that holds the front, into
 * out; returns how many, 0 if another taker won the race (retry). */
static SPOOL__ALWAYS_INLINE size_t spool__fifo_queue_try_take_n(spool__fifo_queue_t *q,
                                                                spool__fifo_call_t *out,
                                                                size_t max)
{
    int64_t t;
    spool__fifo_seg_t *next;
    spool__fifo_seg_t *s = spool__fifo_queue_front_segment(q, &t, &next);
    /* Calls t .. t + max - 1 were all pushed (see above).  A call pushed
     * into a newer segment was pushed after that segment's link, so with
     * next NULL they all lie in s; else those from next's start on lie
     * beyond it, and wait for the next take.  (t < next's start: one call
     * always fits, so a take of one skips the test.) */
    int64_t k = (int64_t)max;
    if (max > 1 && next != NULL && k > next->start - t)
        k = next->start - t;
    int64_t i = 0;
    do {
        out[i].fn = atomic_load_explicit(&s->slots[(t + i) & s->mask].fn, memory_order_relaxed);
        out[i].arg = atomic_load_explicit(&s->slots[(t + i) & s->mask].arg, memory_order_relaxed);
    } while (++i < k);
    /* Release pairs with the owner's acquire load of front in
     * spool__fifo_queue_make_room (the k slots were read before they are
     * reused or their segment freed) and with later takers' acquire load in
     * spool__fifo_queue_front_segment. */
    SPOOL__COUNT(rmw_queues);
    if (!atomic_compare_exchange_strong_explicit(&q->front, &t, t + k, memory_order_release,
                                                 memory_order_relaxed))
        return 0;
    return (size_t)k;
}

/* One try of spool__fifo_queue_take: a batch of one.  False if another
 * taker won the race (retry). */
static inline bool spool__fifo_queue_try_take(spool__fifo_queue_t *q, spool__fifo_call_t *out)
{
    return spool__fifo_queue_try_take_n(q, out, 1) != 0;
}

/* Any thread holding an unspent reference to a call in q: takes the front
 * call (spending the reference).  Never finds q empty: every take before
 * this one spent another reference, and each reference was made after its
 * call was pushed. */
static inline spool__fifo_call_t spool__fifo_queue_take(spool__fifo_queue_t *q)
{
    spool__fifo_call_t call;
    while (!spool__fifo_queue_try_take(q, &call))
        ;
    return call;
}

/* Any thread holding max (>= 1) unspent references to calls in q: takes
 * between 1 and max front calls with one claim, into out (spending as many
 * references), and returns how many.  Fewer than max only where the front's
 * segment ends: the rest are still the caller's to take. */
static inline size_t spool__fifo_queue_take_n(spool__fifo_queue_t *q, spool__fifo_call_t *out,
                                              size_t max)
{
    size_t k;
    while ((k = spool__fifo_queue_try_take_n(q, out, max)) == 0)
        ;
    return k;
}

#endif
