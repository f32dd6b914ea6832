/*
 * Internal: a split Chase-Lev work-stealing deque (one per worker).
 *
 * The owner pushes and pops at the bottom; thieves steal at the top.  The
 * jobs in [top, split) are public: thieves see them, and taking one is the
 * Chase-Lev protocol of Le, Pop, Cohen and Zappa Nardelli, "Correct and
 * Efficient Work-Stealing for Weak Memory Models" (PPoPP 2013), with split
 * in the role of the paper's bottom.  The jobs in [split, bottom) are
 * private (van Dijk and van de Pol's split deque, as in Lace): only the
 * owner writes split, so it pushes and pops them with plain loads and
 * stores, no fence and no read-modify-write.  The owner publishes (moves
 * split up to bottom with a release store) when a thief asked for work
 * (a demand in floor, which the fast pop compares with), or when it pushes
 * while no public job is left (whoever empties the public part raises an
 * alert in limit, which the fast push compares with), so that an idle
 * worker always finds the oldest job without waiting for the owner.
 * deque.md has the protocol and why it is safe.
 *
 * Changes from the paper: every store to split is a release store, so a
 * thief that reads any value of split synchronizes with the owner's latest
 * publication; push reloads the buffer after growing it (the bug CDSChecker
 * found).  Indices are signed 64-bit and never wrap in practice.  A
 * grown-out buffer may still be read by a thief that loaded it before the
 * switch, so retired buffers are kept on a list and freed with the deque
 * (their total is below the size of the live buffer).
 */
#ifndef SPOOL_DEQUE_H
#define SPOOL_DEQUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "job/job.h"
#include "platform/stats.h"
#include "spool_inline.h"

/* limit's value while the public part is (or was just) empty: below every
 * index, so that the owner's next push takes the slow path and publishes. */
#define SPOOL__DEQUE_ALERT INT64_MIN
/* floor's value while a thief's demand is not served: above every index,
 * so that the owner's next pop takes the slow path and publishes. */
#define SPOOL__DEQUE_DEMANDED INT64_MAX

/* A buffer: capacity slots, then capacity tags.  A slot's tag is a word the
 * owner sets for a private job before publishing it (spool__deque_set_tag)
 * and a thief reads before it takes the job (spool__deque_steal_if), when
 * the job's own memory may not be read yet. */
typedef struct spool__deque_buf spool__deque_buf_t;
struct spool__deque_buf {
    int64_t mask; /* capacity - 1; capacity is a power of two */
    spool__deque_buf_t *retired_next;
    _Atomic(spool__job_t *) slots[];
};

static inline atomic_uint_least64_t *spool__deque_buf_tags(spool__deque_buf_t *buf)
{
    return (atomic_uint_least64_t *)(void *)&buf->slots[buf->mask + 1];
}

typedef struct spool__deque {
    /* Thieves' CAS word on its own line. */
    SPOOL__ALIGNED atomic_int_least64_t top;
    /* What thieves read on every steal, written by the owner only when it
     * publishes, pops a public job or grows; asked is the one word thieves
     * write here, once per publication at most. */
    SPOOL__ALIGNED atomic_int_least64_t split;
    _Atomic(spool__deque_buf_t *) buf;
    /* A thief found no public job and stored the demand in floor; read
     * (here, not on the owner's line) so that searching thieves do not
     * write again and again; cleared by the owner once it served it. */
    atomic_int asked;
    /* The owner's line.  bottom is atomic only for length hints. */
    SPOOL__ALIGNED atomic_int_least64_t bottom;
    /* The owner's push bound: a value of top read with acquire (not newer
     * than top) plus the capacity, or less (the window's end), or
     * SPOOL__DEQUE_ALERT once the public part ran out (rule 1 in deque.md):
     * a thief that takes the last public job stores the alert here, the one
     * word thieves write on this line, so that the owner's fast push needs
     * no look at top.  The owner writes it only with exchanges (one takes
     * an alert back: spool__deque_make_room), and plain stores of the
     * alert. */
    atomic_int_least64_t limit;
    /* The owner's private-pop bound: split's value, or more (the window's
     * start), or SPOOL__DEQUE_DEMANDED while a thief's demand is not served
     * (rule 2), so that the fast pop's one compare covers both.  Thieves
     * write only the demand; every write of floor is a read-modify-write
     * (the thieves' exchange, the owner's in spool__deque_publish and
     * spool__deque_floor_follows_split). */
    atomic_int_least64_t floor;
    /* Owner only: the address of index 0's slot if the buffer ran on
     * without wrapping from the window's start (lap): the fast push and
     * pop reach the slot of an index in the window, [lap, lap + capacity),
     * with one add (deque.md). */
    uintptr_t base;
    /* Owner only: the live buffer's slots and mask (the slow paths index
     * with them), and the window's start (a multiple of the capacity, with
     * lap <= bottom <= lap + capacity). */
    _Atomic(spool__job_t *) *slots;
    atomic_uint_least64_t *tags;
    int64_t mask;
    int64_t lap;
    /* Owner only: split's value (only the owner writes split), a plain
     * field on the owner's line that push and pop compare in one
     * instruction. */
    int64_t owner_split;
    spool__deque_buf_t *retired; /* owner only */
} spool__deque_t;

/* The owner's fast push and pop are spool_inline.h's, which programs that
 * use spool_join_inline compile in: they see the fields from bottom to base
 * as struct spool__fork_owner_v4, which must match. */
#define SPOOL__DEQUE_OWNER_FIELD_AT(field)                                                        \
    (offsetof(spool__deque_t, field) - offsetof(spool__deque_t, bottom) ==                        \
     offsetof(struct spool__fork_owner_v4, field))
_Static_assert(SPOOL__DEQUE_OWNER_FIELD_AT(limit) && SPOOL__DEQUE_OWNER_FIELD_AT(floor) &&
                   SPOOL__DEQUE_OWNER_FIELD_AT(base) &&
                   sizeof(atomic_int_least64_t) == sizeof(int64_t) &&
                   sizeof(_Atomic(spool__job_t *)) == sizeof(spool__job_t *),
               "struct spool__fork_owner_v4 (spool_inline.h) no longer matches the deque");

static inline struct spool__fork_owner_v4 *spool__deque_owner(spool__deque_t *d)
{
    return (struct spool__fork_owner_v4 *)(void *)&d->bottom;
}

typedef enum {
    SPOOL__STEAL_EMPTY,
    SPOOL__STEAL_SUCCESS,
    SPOOL__STEAL_RETRY /* lost a race; the deque may still hold work */
} spool__steal_t;

/* Owner only: sets split to s, and its owner's copy.  order is release:
 * it pairs with the thieves' acquire load of
 * split in spool__deque_take_oldest, so a thief that sees a new split sees
 * the slots below it and their jobs' fields. */
static inline void spool__deque_set_split(spool__deque_t *d, int64_t s, memory_order order)
{
    d->owner_split = s;
    atomic_store_explicit(&d->split, s, order);
}

/* Owner only: floor's value when no demand is up: split, or the window's
 * start if that is higher (the fast pop must not leave the window). */
static inline int64_t spool__deque_floor_bound(const spool__deque_t *d)
{
    return d->owner_split > d->lap ? d->owner_split : d->lap;
}

/* Owner only, after split or the window moved without serving a demand (a
 * public pop, a new window): floor follows, unless a demand is up, which
 * stays for the next pop to serve.  A CAS, so that a demand stored
 * meanwhile is not overwritten, and the owner never stores the demand itself: every write of floor after a
 * thief's is a read-modify-write, which keeps that thief's release sequence
 * going to the exchange that serves it (spool__deque_publish). */
static inline void spool__deque_floor_follows_split(spool__deque_t *d)
{
    int64_t cur = atomic_load_explicit(&d->floor, memory_order_relaxed);
    while (cur != SPOOL__DEQUE_DEMANDED) {
        SPOOL__COUNT(rmw_deques);
        if (atomic_compare_exchange_weak_explicit(&d->floor, &cur, spool__deque_floor_bound(d),
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
}

/* Returns 0 or ENOMEM. */
int spool__deque_init(spool__deque_t *d);
void spool__deque_destroy(spool__deque_t *d);
/* Owner only: doubles the buffer.  Returns the new one, NULL if out of memory. */
spool__deque_buf_t *spool__deque_grow(spool__deque_t *d, int64_t top, int64_t bottom);
/* Owner only: spool__deque_room's slow path (b >= limit: the buffer looks
 * full, the window ends, or the alert is up); moves the window to b's. */
bool spool__deque_make_room(spool__deque_t *d, int64_t b);
/* Owner only: moves the window down to bottom's lap, after a slow pop left
 * bottom (its new value) below it. */
void spool__deque_window_down(spool__deque_t *d, int64_t bottom);

/* Owner only, after a slow pop set bottom: moves the window down if bottom
 * left it.  True if it moved (floor then followed split too). */
static inline bool spool__deque_window_follows(spool__deque_t *d, int64_t bottom)
{
    if (SPOOL__LIKELY(bottom >= d->lap))
        return false;
    spool__deque_window_down(d, bottom);
    return true;
}
/* Owner only: the public pop (fence, and a CAS for the last job); see
 * spool__deque_pop. */
spool__job_t *spool__deque_pop_public(spool__deque_t *d, int64_t b);

/* Owner only: is slot b free?  Grows the buffer if it is not; false if it
 * could not grow. */
static inline bool spool__deque_room(spool__deque_t *d, int64_t b)
{
    if (SPOOL__UNLIKELY(b >= atomic_load_explicit(&d->limit, memory_order_relaxed)))
        return spool__deque_make_room(d, b);
    return true;
}

/* Owner only: makes room for one push, so that the next push cannot fail.
 * False if the buffer could not grow. */
static inline bool spool__deque_reserve(spool__deque_t *d)
{
    return spool__deque_room(d, atomic_load_explicit(&d->bottom, memory_order_relaxed));
}

/* Owner only: pushes job as a private job (see spool__deque_publish).
 * False (nothing pushed) if the buffer was full and could not grow. */
static inline bool spool__deque_push(spool__deque_t *d, spool__job_t *job)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (SPOOL__UNLIKELY(!spool__deque_room(d, b)))
        return false;
    atomic_store_explicit(&d->slots[b & d->mask], job, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    return true;
}

/* Owner only: the fork fast path's push.  Pushes job as a private job if
 * that needs nothing more (room in the buffer, and no alert: a public job
 * left, so no publication); else returns false with nothing pushed, and the
 * caller pushes the slow way (spool__deque_push, which takes the alert back,
 * then publish if wanted).  One compare covers both. */
static inline bool spool__deque_push_private(spool__deque_t *d, spool__job_t *job)
{
    return spool__fork_push_v4(spool__deque_owner(d), job);
}

/* Owner only: spool_fork_inline's push, the fast push that also gives the
 * index it pushes at (or would have: the slow push uses the same). */
static inline bool spool__deque_push_private_at(spool__deque_t *d, spool__job_t *job,
                                                int64_t *index)
{
    return spool__fork_push_at_v4(spool__deque_owner(d), job, index);
}

/* Owner only: spool_sync_inline's pop: job, pushed at index, if it is
 * still the newest job, private and not asked for, and in its slot; else
 * false with nothing popped (deque.md). */
static inline bool spool__deque_pop_private_at(spool__deque_t *d, int64_t index, spool__job_t *job)
{
    return spool__fork_pop_at_v4(spool__deque_owner(d), index, job);
}

/* Owner only: the private job at index i, split <= i < bottom. */
static inline spool__job_t *spool__deque_private_job(spool__deque_t *d, int64_t i)
{
    return atomic_load_explicit(&d->slots[i & d->mask], memory_order_relaxed);
}

/* Owner only: the fork fast path's pop.  Pops the newest job if it is
 * private and no thief asked for work (one compare with floor covers both);
 * else returns NULL with nothing popped, and the caller pops the slow way
 * (spool__deque_pop, then publish if demanded). */
static inline spool__job_t *spool__deque_pop_private(spool__deque_t *d)
{
    return spool__fork_pop_v4(spool__deque_owner(d));
}

/* Owner only: true, with the newest job's index in *index, if popping that
 * job and at once pushing it back would both take the fast path (private,
 * no thief asked, no alert for the push); else false.  A holder that takes
 * part of that job (spool__deque_private_job) and would push the rest back
 * at the same index (a scope's end running its own spawn block) does so
 * without the pop and the push, leaving the job where it lies. */
static inline bool spool__deque_newest_private(spool__deque_t *d, int64_t *index)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    if (SPOOL__UNLIKELY(b < atomic_load_explicit(&d->floor, memory_order_relaxed) ||
                        b >= atomic_load_explicit(&d->limit, memory_order_relaxed)))
        return false;
    *index = b;
    return true;
}

/* Owner only: spool__deque_newest_private's test for a job the caller
 * knows lies at index: true if it is the newest, and popping it and pushing
 * it back would both take the fast path. */
static inline bool spool__deque_newest_private_at(spool__deque_t *d, int64_t index)
{
    return atomic_load_explicit(&d->bottom, memory_order_relaxed) == index + 1 &&
           index >= atomic_load_explicit(&d->floor, memory_order_relaxed) &&
           index < atomic_load_explicit(&d->limit, memory_order_relaxed);
}

/* Owner only: the job at index i of the window (spool__deque_newest_private's
 * answer), read through base as the fast pop does. */
static inline spool__job_t *spool__deque_window_job(spool__deque_t *d, int64_t i)
{
    return __atomic_load_n(spool__fork_slot_v4(spool__deque_owner(d), i), __ATOMIC_RELAXED);
}

/* Owner only: pops the newest job, at index (spool__deque_newest_private's
 * answer), without reading it again. */
static inline void spool__deque_drop_newest(spool__deque_t *d, int64_t index)
{
    atomic_store_explicit(&d->bottom, index, memory_order_relaxed);
}

/* Owner only: sets the tag of private job i (split <= i < bottom), which
 * its publication (the release store of split) makes visible with it. */
static inline void spool__deque_set_tag(spool__deque_t *d, int64_t i, uint64_t tag)
{
    atomic_store_explicit(&d->tags[i & d->mask], tag, memory_order_relaxed);
}

/* Owner only: the tag of job i, set at its publication. */
static inline uint64_t spool__deque_tag(spool__deque_t *d, int64_t i)
{
    return atomic_load_explicit(&d->tags[i & d->mask], memory_order_relaxed);
}

/* Owner only, after a slow push: should the private jobs be published now?
 * Yes if no public job is left, so that an idle worker finds the oldest job
 * without waiting.  If the push took an alert back, this load sees the steal
 * that raised it (spool__deque_make_room); an alert raised later stays up
 * for the next push.  A thief's demand needs no test here: it found no
 * public job, and only the owner adds any, so top >= split still holds. */
static inline bool spool__deque_wants_publish(spool__deque_t *d)
{
    return atomic_load_explicit(&d->top, memory_order_relaxed) >= d->owner_split;
}

/* Owner only: makes every private job public, which serves a thief's
 * demand.  Returns how many; *was_empty says whether the public part looked
 * empty before. */
static inline int64_t spool__deque_publish(spool__deque_t *d, bool *was_empty)
{
    int64_t s = d->owner_split;
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    *was_empty = atomic_load_explicit(&d->top, memory_order_relaxed) >= s;
    if (b > s)
        spool__deque_set_split(d, b, memory_order_release);
    else if (atomic_load_explicit(&d->floor, memory_order_relaxed) != SPOOL__DEQUE_DEMANDED)
        return 0; /* floor is at its bound already, and no demand to serve */
    /* Floor up to the new split, and any demand served: an exchange, so that
     * a demand stored after it stays.  Acquire pairs with the thieves'
     * release exchange of the demand (spool__deque_take_oldest): if we take
     * one, the store of asked by its thief, and by any thief whose demand
     * came before it, comes before our clear below, so asked cannot stay
     * set (and keep later thieves from asking) with no demand in floor. */
    (void)atomic_exchange_explicit(&d->floor, spool__deque_floor_bound(d), memory_order_acquire);
    if (atomic_load_explicit(&d->asked, memory_order_relaxed) != 0)
        atomic_store_explicit(&d->asked, 0, memory_order_relaxed);
    return b - s;
}

/* Owner only: pushes job as a public job, on a queue whose jobs are all
 * public (the broadcasts: only taken from the top). */
static inline bool spool__deque_push_public(spool__deque_t *d, spool__job_t *job)
{
    if (!spool__deque_push(d, job))
        return false;
    /* As spool__deque_publish (all jobs here are public, so demand and top
     * need no look). */
    spool__deque_set_split(d, atomic_load_explicit(&d->bottom, memory_order_relaxed),
                           memory_order_release);
    /* No owner pops here; floor is kept at split all the same. */
    spool__deque_floor_follows_split(d);
    return true;
}

/* Owner only.  The most recently pushed job, or NULL.  A private job is
 * taken with plain loads and stores: no thief can take it, since thieves
 * take only below split and only the owner moves split.  A public one
 * needs the Chase-Lev pop (spool__deque_pop_public). */
static inline spool__job_t *spool__deque_pop(spool__deque_t *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    if (SPOOL__LIKELY(b >= d->owner_split)) {
        atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
        spool__deque_window_follows(d, b);
        return atomic_load_explicit(&d->slots[b & d->mask], memory_order_relaxed);
    }
    return spool__deque_pop_public(d, b);
}

/* Owner only: has a thief asked for work, not served yet?  (A load of the
 * owner's own line; spool__worker_publish finds whether there is anything
 * private to publish.) */
static inline bool spool__deque_demanded(spool__deque_t *d)
{
    return atomic_load_explicit(&d->floor, memory_order_relaxed) == SPOOL__DEQUE_DEMANDED;
}

/* A thief's test of the oldest public job, at index t with tag tag, before
 * it takes it (an isolated waiter's: is it of my region?); false leaves it
 * there. */
typedef bool (*spool__deque_keep_fn)(const void *arg, int64_t t, uint64_t tag);

/* Takes the oldest public job into *out, and its index into *index unless
 * index is NULL.  fenced: the owner may pop concurrently (see
 * spool__deque_steal); ask: raise demand if there is none; keep, unless
 * NULL: take the job only if keep(keep_arg, its index) (else EMPTY).  The
 * caller passes constants for fenced, ask and keep's being NULL. */
static inline spool__steal_t spool__deque_take_oldest(spool__deque_t *d, spool__job_t **out,
                                                      bool fenced, bool ask, int64_t *index,
                                                      spool__deque_keep_fn keep,
                                                      const void *keep_arg)
{
    /* Acquire pairs with the CAS on top by other thieves and the owner. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (fenced)
        /* Pairs with the fence in spool__deque_pop_public. */
        spool__fence_seq_cst();
    /* Acquire pairs with the release stores of split by the owner. */
    int64_t s = atomic_load_explicit(&d->split, memory_order_acquire);
    if (t >= s) {
        /* The demand, in floor, makes the owner's next fast pop fail: it
         * publishes (spool__deque_publish).  asked first, then floor (in
         * that order: see the exchange there). */
        if (ask && atomic_load_explicit(&d->asked, memory_order_relaxed) == 0) {
            atomic_store_explicit(&d->asked, 1, memory_order_relaxed);
            /* Release pairs with the owner's acquire exchange in
             * spool__deque_publish.  An exchange, not a store: two thieves
             * may ask at once, and that exchange reads one; as every
             * write of floor is a read-modify-write, it is in the other's
             * release sequence too, so both stores of asked come before
             * its clear. */
            (void)atomic_exchange_explicit(&d->floor, SPOOL__DEQUE_DEMANDED, memory_order_release);
        }
        return SPOOL__STEAL_EMPTY;
    }
    /* Acquire pairs with the release store of buf in spool__deque_grow. */
    spool__deque_buf_t *buf = atomic_load_explicit(&d->buf, memory_order_acquire);
    /* After the acquire of split, which published the job at t, its tag and
     * what its owner noted before it (context.h).  A tag read after another
     * thief took the job (and its slot was reused) is stale, and then the
     * CAS below fails. */
    if (keep != NULL &&
        !keep(keep_arg, t,
              atomic_load_explicit(&spool__deque_buf_tags(buf)[t & buf->mask],
                                   memory_order_relaxed)))
        return SPOOL__STEAL_EMPTY;
    spool__job_t *job = atomic_load_explicit(&buf->slots[t & buf->mask], memory_order_relaxed);
    SPOOL__COUNT(rmw_deques);
    /* Seq-cst pairs with the owner's CAS in pop and the other thieves'; its
     * release half pairs with the acquire load of top in push. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return SPOOL__STEAL_RETRY;
    /* The last public job: the owner's next push publishes.  split read
     * again, after the CAS: the s read before it may be older than the
     * owner's public pop of the job above ours, and then says that job is
     * still there while neither of us raises the alert (deque.md, I2).  Seq-cst pairs with the owner's fence in
     * spool__deque_pop_public: either its load of top sees our CAS (it
     * finds the public part empty, and raises the alert itself), or this
     * load sees its lower split.  Release pairs with the owner's acquire
     * exchange in spool__deque_make_room. */
    if (ask && t + 1 >= atomic_load_explicit(&d->split, memory_order_seq_cst))
        atomic_store_explicit(&d->limit, SPOOL__DEQUE_ALERT, memory_order_release);
    *out = job;
    if (index != NULL)
        *index = t;
    return SPOOL__STEAL_SUCCESS;
}

/* Any thread.  Takes the oldest public job into *out; if there is none,
 * asks the owner to publish its private ones. */
static inline spool__steal_t spool__deque_steal(spool__deque_t *d, spool__job_t **out)
{
    return spool__deque_take_oldest(d, out, true, true, NULL, NULL, NULL);
}

/* As spool__deque_steal, and the job's index into *index. */
static inline spool__steal_t spool__deque_steal_at(spool__deque_t *d, spool__job_t **out,
                                                   int64_t *index)
{
    return spool__deque_take_oldest(d, out, true, true, index, NULL, NULL);
}

/* As spool__deque_steal_at, taking the job only if keep(keep_arg, its
 * index) says so (an isolated waiter's steal): else it stays, and the
 * result is EMPTY.  Out of line at its callers' wish. */
static inline spool__steal_t spool__deque_steal_if(spool__deque_t *d, spool__job_t **out,
                                                   int64_t *index, spool__deque_keep_fn keep,
                                                   const void *keep_arg)
{
    return spool__deque_take_oldest(d, out, true, true, index, keep, keep_arg);
}

/* Any thread, on a deque whose owner pushes only public jobs and never pops
 * (the broadcasts): takes the oldest job.  With no pop there is
 * no race with the owner for the last job, and the thieves' fence, which
 * pairs only with pop's, is not needed; thieves still race each other
 * through the CAS on top. */
static inline spool__steal_t spool__deque_take_front(spool__deque_t *d, spool__job_t **out)
{
    return spool__deque_take_oldest(d, out, false, false, NULL, NULL, NULL);
}

/* Any thread: the index and tag of the oldest public job, if there is one
 * (a look, as a thief's before its CAS: acquire loads of top and split,
 * which published the tag).  False if the public part looked empty. */
static inline bool spool__deque_peek_oldest(spool__deque_t *d, int64_t *index, uint64_t *tag)
{
    /* Acquire pairs with the thieves' CAS and the owner's release stores of
     * split, as in spool__deque_take_oldest. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (t >= atomic_load_explicit(&d->split, memory_order_acquire))
        return false;
    /* Acquire pairs with the release store of buf in spool__deque_grow. */
    spool__deque_buf_t *buf = atomic_load_explicit(&d->buf, memory_order_acquire);
    *index = t;
    *tag = atomic_load_explicit(&spool__deque_buf_tags(buf)[t & buf->mask], memory_order_relaxed);
    return true;
}

/* Any thread; a hint (relaxed loads, stale by the time it returns): are
 * public jobs left to steal? */
static inline bool spool__deque_has_public(spool__deque_t *d)
{
    return atomic_load_explicit(&d->top, memory_order_relaxed) <
           atomic_load_explicit(&d->split, memory_order_relaxed);
}

/* Any thread; a snapshot that may be stale by the time it returns. */
static inline int64_t spool__deque_len(spool__deque_t *d)
{
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    return b > t ? b - t : 0;
}

#endif
