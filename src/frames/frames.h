/*
 * Internal: a frame deque, the typed tasks' deque (frames.md).
 *
 * One per thread that runs typed tasks (a worker's, or a thread's own
 * outside any pool): a run of 64-byte cells in SPOOL__FRAMES_BYTES_V4 of
 * address space aligned to its size, so that a cell's address gives the
 * deque.  A typed spawn writes its frame into the cell at the owner's head
 * and a sync takes the newest back (spool_typed.h; the head lives in the
 * owner's code, never here).  Cells [tail, split) are public: a thief takes
 * the oldest with a CAS on ts, then runs it and sets the cell's state (its
 * latch).  Cells [split, head) are private: only the owner sees them.  A
 * thief that finds no public cell, or takes the last one, asks: the
 * owner's next spawn or sync fails its fast test (limit, floor) and
 * publishes every private cell.  This file knows no worker; the worker
 * layer (scheduler/frames.c) wakes sleepers after a publication and waits for
 * a thief.
 */
#ifndef SPOOL_FRAMES_H
#define SPOOL_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "spool_typed.h"

/* floor while an ask is up: above every cell, so that the next sync's fast
 * test fails; limit's is 0, below every cell, for the next spawn's. */
#define SPOOL__FRAMES_ASKED_FLOOR UINTPTR_MAX
#define SPOOL__FRAMES_ASKED_LIMIT ((uintptr_t)0)

/* ts: tail in bits 0-23, split in 24-47, and in 48-63 a count of the
 * owner's resets (the one write that lowers tail), so that a thief's CAS
 * cannot succeed on a value it read before a reset (frames.md, F5). */
#define SPOOL__FRAMES_SPLIT_SHIFT 24
#define SPOOL__FRAMES_GEN_SHIFT 48
#define SPOOL__FRAMES_INDEX_MASK ((UINT64_C(1) << SPOOL__FRAMES_SPLIT_SHIFT) - 1)

/* The cells begin after the deque's own words. */
#define SPOOL__FRAMES_HEADER_BYTES 256

typedef struct spool__frames {
    /* The owner's line, read by every spawn and sync: spool_typed.h's
     * struct spool__frames_owner_v4.  limit: the last cell's address (the
     * spawn writes it only to fail, then overflows), or ASKED_LIMIT; floor:
     * the first private cell's address, or ASKED_FLOOR.  Thieves write them
     * only to ask; every write of either is a read-modify-write (frames.md,
     * F3). */
    _Atomic(uintptr_t) limit;
    _Atomic(uintptr_t) floor;
    /* Owner only: split's value. */
    int64_t osplit;
    /* Read only after creation: the overflow cell's address, and the
     * owner (a worker, NULL for a thread outside any pool), for the layer
     * above. */
    uintptr_t overflow;
    void *owner;
    /* Can thieves see it?  (A pool of one thread has none.)  Rule 1 then
     * keeps the alert up while no cell is public (frames.md). */
    bool shared;
    /* The thieves' line: ts, and asked (set by the thief that asks, so
     * that searching thieves write the owner's line once per ask). */
    SPOOL__ALIGNED _Atomic(uint64_t) ts;
    atomic_int asked;
} spool__frames_t;

_Static_assert(offsetof(spool__frames_t, limit) == offsetof(struct spool__frames_owner_v4, limit) &&
                   offsetof(spool__frames_t, floor) ==
                       offsetof(struct spool__frames_owner_v4, floor) &&
                   sizeof(_Atomic(uintptr_t)) == sizeof(uintptr_t) &&
                   sizeof(spool__frames_t) <= SPOOL__FRAMES_HEADER_BYTES &&
                   SPOOL__FRAMES_HEADER_BYTES % sizeof(struct spool__cell_v4) == 0,
               "struct spool__frames_owner_v4 (spool_typed.h) no longer matches the frame deque");

/* The number of cells, the last of which is the overflow cell. */
#define SPOOL__FRAMES_CELLS                                                                        \
    ((int64_t)((SPOOL__FRAMES_BYTES_V4 - SPOOL__FRAMES_HEADER_BYTES) / sizeof(struct spool__cell_v4)))
_Static_assert(SPOOL__FRAMES_CELLS <= (int64_t)SPOOL__FRAMES_INDEX_MASK, "ts's index fields");

typedef enum {
    SPOOL__FRAMES_EMPTY,
    SPOOL__FRAMES_TAKEN,
    SPOOL__FRAMES_RETRY /* lost a race; the deque may still hold public cells */
} spool__frames_steal_t;

static inline int64_t spool__frames_tail(uint64_t ts)
{
    return (int64_t)(ts & SPOOL__FRAMES_INDEX_MASK);
}

static inline int64_t spool__frames_split(uint64_t ts)
{
    return (int64_t)((ts >> SPOOL__FRAMES_SPLIT_SHIFT) & SPOOL__FRAMES_INDEX_MASK);
}

static inline uint64_t spool__frames_ts(int64_t tail, int64_t split, uint64_t gen)
{
    return (uint64_t)tail | (uint64_t)split << SPOOL__FRAMES_SPLIT_SHIFT |
           gen << SPOOL__FRAMES_GEN_SHIFT;
}

static inline struct spool__cell_v4 *spool__frames_cell(spool__frames_t *d, int64_t i)
{
    return (struct spool__cell_v4 *)(void *)((char *)d + SPOOL__FRAMES_HEADER_BYTES) + i;
}

static inline int64_t spool__frames_index(spool__frames_t *d, struct spool__cell_v4 *c)
{
    return c - spool__frames_cell(d, 0);
}

/* The deque a cell lies in. */
static inline spool__frames_t *spool__frames_of(struct spool__cell_v4 *c)
{
    return (spool__frames_t *)(void *)spool__frames_bounds_v4(c);
}

static inline struct spool__frame_hdr_v4 *spool__frames_hdr(struct spool__cell_v4 *c)
{
    return &c->hdr;
}

/* A cell's state word, the latch its thief sets (scheduler/frames.c). */
static inline atomic_int *spool__frames_state(struct spool__cell_v4 *c)
{
    return (atomic_int *)(void *)&c->hdr.state;
}
_Static_assert(sizeof(atomic_int) == sizeof(int), "a cell's state word");

/* Owner only: spool_typed.h's fast tests on d: may a spawn that wrote c
 * go on alone, is the cell a sync took back still private with no ask? */
static inline bool spool__frames_spawn_fast(spool__frames_t *d, struct spool__cell_v4 *c)
{
    return spool__frames_spawn_fast_v4((struct spool__frames_owner_v4 *)(void *)d, c);
}

static inline bool spool__frames_sync_fast(spool__frames_t *d, struct spool__cell_v4 *c)
{
    return spool__frames_sync_fast_v4((struct spool__frames_owner_v4 *)(void *)d, c);
}

/* Sets up the deque's words in d, whose cells are zero (all free). */
static inline void spool__frames_init(spool__frames_t *d, void *owner, bool shared)
{
    d->osplit = 0;
    d->owner = owner;
    d->shared = shared;
    d->overflow = (uintptr_t)spool__frames_cell(d, SPOOL__FRAMES_CELLS - 1);
    /* Nothing public yet: the first spawn publishes (rule 1). */
    atomic_init(&d->limit, shared ? SPOOL__FRAMES_ASKED_LIMIT : d->overflow);
    atomic_init(&d->floor, (uintptr_t)spool__frames_cell(d, 0));
    atomic_init(&d->ts, 0);
    atomic_init(&d->asked, 0);
}

/* A new deque for owner (opaque here), which thieves see if shared, or
 * NULL with errno ENOMEM. */
spool__frames_t *spool__frames_create(void *owner, bool shared);
void spool__frames_destroy(spool__frames_t *d);

/* Owner only: the head, found from the cells (frames.md, F1: the cells
 * below the head hold spawns, none at or above it). */
int64_t spool__frames_head(spool__frames_t *d);

/* Owner only: floor follows osplit unless an ask is up: a CAS, so that an
 * ask stored meanwhile stays (F3). */
static inline void spool__frames_floor_follows(spool__frames_t *d)
{
    uintptr_t cur = atomic_load_explicit(&d->floor, memory_order_relaxed);
    uintptr_t bound = (uintptr_t)spool__frames_cell(d, d->osplit);
    while (cur != SPOOL__FRAMES_ASKED_FLOOR &&
           !atomic_compare_exchange_weak_explicit(&d->floor, &cur, bound, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

/* Owner only: serves the asks and publishes the private cells below to
 * (osplit <= to).  Returns how many it published; *was_empty says whether
 * the public part was empty before. */
static inline int64_t spool__frames_serve(spool__frames_t *d, int64_t to, bool *was_empty)
{
    int64_t n = to - d->osplit;
    /* The asks are taken back before the cells are published (F3): a
     * thief that sees the new split and asks again has its ask stay.  The
     * alert stays if no cell will be public (rule 1). */
    uint64_t now = atomic_load_explicit(&d->ts, memory_order_relaxed);
    bool none = n <= 0 && spool__frames_tail(now) >= spool__frames_split(now);
    (void)atomic_exchange_explicit(&d->limit,
                                   none && d->shared ? SPOOL__FRAMES_ASKED_LIMIT : d->overflow,
                                   memory_order_relaxed);
    /* Acquire pairs with the thieves' release exchange in
     * spool__frames_ask: if we take an ask, its thief's store of asked
     * comes before our clear below. */
    (void)atomic_exchange_explicit(&d->floor, (uintptr_t)spool__frames_cell(d, to),
                                   memory_order_acquire);
    if (atomic_load_explicit(&d->asked, memory_order_relaxed) != 0)
        (void)atomic_exchange_explicit(&d->asked, 0, memory_order_relaxed);
    *was_empty = false;
    if (n <= 0)
        return 0;
    d->osplit = to;
    /* Release pairs with the thieves' acquire CAS (and load) of ts: a thief
     * that takes a cell below the new split sees the frame written there.
     * An add to the split field alone: thieves' CASes on tail meanwhile
     * are kept. */
    uint64_t old = atomic_fetch_add_explicit(&d->ts, (uint64_t)n << SPOOL__FRAMES_SPLIT_SHIFT,
                                             memory_order_release);
    *was_empty = spool__frames_tail(old) >= spool__frames_split(old);
    return n;
}

/* Owner only: a spawn wrote cell i and its fast test failed, not for the
 * overflow cell: an ask is up.  Publishes every private cell, i too;
 * returns how many (spool__frames_serve). */
static inline int64_t spool__frames_spawned_slow(spool__frames_t *d, int64_t i, bool *was_empty)
{
    return spool__frames_serve(d, i + 1, was_empty);
}

typedef enum {
    SPOOL__FRAMES_MINE,  /* the owner runs the frame itself */
    SPOOL__FRAMES_STOLEN /* a thief took it: wait for its state, then spool__frames_stolen_done */
} spool__frames_sync_t;

/* Owner only: a sync took cell i back (the head is i now) and its fast test
 * failed.  A private cell: an ask is up, served by publishing the older
 * private cells (*published, *was_empty).  A public one (split is i + 1):
 * its CAS takes split below it unless a thief took it first. */
static inline spool__frames_sync_t spool__frames_popped_slow(spool__frames_t *d, int64_t i,
                                                             int64_t *published, bool *was_empty)
{
    *published = 0;
    *was_empty = false;
    if (i >= d->osplit) {
        *published = spool__frames_serve(d, i, was_empty);
        return SPOOL__FRAMES_MINE;
    }
    uint64_t ts = atomic_load_explicit(&d->ts, memory_order_relaxed);
    for (;;) {
        if (spool__frames_tail(ts) > i)
            return SPOOL__FRAMES_STOLEN;
        /* Relaxed: the CAS decides between the thieves' CASes and ours
         * alone (F4); the owner reads only its own writes of the cell. */
        int64_t t = spool__frames_tail(ts);
        if (atomic_compare_exchange_weak_explicit(
                &d->ts, &ts, spool__frames_ts(t, i, ts >> SPOOL__FRAMES_GEN_SHIFT),
                memory_order_relaxed, memory_order_relaxed)) {
            d->osplit = i;
            spool__frames_floor_follows(d);
            if (t == i && d->shared) /* no public cell left: rule 1 */
                (void)atomic_exchange_explicit(&d->limit, SPOOL__FRAMES_ASKED_LIMIT,
                                               memory_order_relaxed);
            return SPOOL__FRAMES_MINE;
        }
    }
}

/* Owner only: the thief of cell i set its state (the result is in the
 * cell), and every cell above i is synced: tail and split are i + 1 (F5).
 * Both go back to i, and the cell is free. */
static inline void spool__frames_stolen_done(spool__frames_t *d, int64_t i)
{
    uint64_t ts = atomic_load_explicit(&d->ts, memory_order_relaxed);
    /* A store: with tail at split no thief's CAS can succeed (F5).
     * Release: a thief that reads the new ts and asks has its ask come
     * after this (with the serve before it). */
    atomic_store_explicit(&d->ts, spool__frames_ts(i, i, (ts >> SPOOL__FRAMES_GEN_SHIFT) + 1),
                          memory_order_release);
    d->osplit = i;
    spool__frames_floor_follows(d);
    /* No public cell left: rule 1. */
    (void)atomic_exchange_explicit(&d->limit, SPOOL__FRAMES_ASKED_LIMIT, memory_order_relaxed);
    struct spool__cell_v4 *c = spool__frames_cell(d, i);
    /* Relaxed: the thief's set was its last access (frames.md, F6). */
    atomic_store_explicit(spool__frames_state(c), 0, memory_order_relaxed);
    c->hdr.steal = NULL;
}

/* A thief's ask: the owner's next spawn or sync publishes. */
static inline void spool__frames_ask(spool__frames_t *d)
{
    /* A look first, so that searching thieves do not write the line. */
    if (atomic_load_explicit(&d->asked, memory_order_relaxed) != 0 ||
        atomic_exchange_explicit(&d->asked, 1, memory_order_relaxed) != 0)
        return;
    (void)atomic_exchange_explicit(&d->limit, SPOOL__FRAMES_ASKED_LIMIT, memory_order_relaxed);
    /* Release pairs with the owner's acquire exchange in
     * spool__frames_serve; an exchange, so that every write of floor after
     * an ask is a read-modify-write (F3). */
    (void)atomic_exchange_explicit(&d->floor, SPOOL__FRAMES_ASKED_FLOOR, memory_order_release);
}

/* A thief's test of the oldest public cell, at index t, before it takes it
 * (an isolated thief's: of my region?); false leaves it there. */
typedef bool (*spool__frames_keep_fn)(const void *arg, int64_t t);

/* Any thread but the owner: takes the oldest public cell (its index into
 * *index), which the caller then runs and whose state it sets; asks if
 * there is none, or if it took the last.  keep, unless NULL: take the
 * cell only if keep(keep_arg, its index) (else EMPTY). */
static inline spool__frames_steal_t spool__frames_steal(spool__frames_t *d, int64_t *index,
                                                        spool__frames_keep_fn keep,
                                                        const void *keep_arg)
{
    uint64_t ts = atomic_load_explicit(&d->ts, memory_order_relaxed);
    int64_t t = spool__frames_tail(ts), s = spool__frames_split(ts);
    if (t >= s) {
        spool__frames_ask(d);
        return SPOOL__FRAMES_EMPTY;
    }
    if (keep != NULL && !keep(keep_arg, t))
        return SPOOL__FRAMES_EMPTY;
    /* Acquire pairs with the owner's release publication (the cell's frame
     * is read after this); the CAS decides the cell between the thieves
     * and the owner's CAS in spool__frames_popped_slow (F4). */
    if (!atomic_compare_exchange_strong_explicit(&d->ts, &ts, ts + 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return SPOOL__FRAMES_RETRY;
    if (t + 1 == s)
        spool__frames_ask(d); /* the last: the owner publishes again */
    *index = t;
    return SPOOL__FRAMES_TAKEN;
}

/* Any thread: the index of the oldest public cell, if there is one (a
 * look, as a thief's before its CAS).  False if none looked public. */
static inline bool spool__frames_peek(spool__frames_t *d, int64_t *index)
{
    uint64_t ts = atomic_load_explicit(&d->ts, memory_order_relaxed);
    *index = spool__frames_tail(ts);
    return spool__frames_tail(ts) < spool__frames_split(ts);
}

/* Owner only: has a thief asked, not served yet? */
static inline bool spool__frames_asked(spool__frames_t *d)
{
    return atomic_load_explicit(&d->floor, memory_order_relaxed) == SPOOL__FRAMES_ASKED_FLOOR;
}

#endif
