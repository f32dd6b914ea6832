/*
 * Internal: where copying spawns keep their copies (spawn_copy.c).
 *
 * Each worker carves copies out of a chunk of its own, from the front, with
 * no lock and no atomic operation: a copy costs a pointer bump and its
 * memcpy.  Whoever runs the job (any worker) releases the copy by dropping
 * the chunk's count; the chunk is freed when its count reaches zero, which
 * happens only after the owner has retired it (moved on to a new chunk) and
 * every copy in it was released.
 *
 * The count is biased so that taking a copy needs no atomic operation: a
 * new chunk's count is SPOOL__COPY_BIAS, more than the copies a chunk can
 * hold, and the owner counts its copies in a plain field; retiring drops
 * the count by SPOOL__COPY_BIAS - taken, so that from then on the count is
 * the number of copies not yet released.  Every drop is acq_rel: the drop
 * that reaches zero has seen, through the release sequence of the count,
 * every earlier releaser finish with its copy (and the owner finish
 * writing every copy), so freeing or reusing the chunk races with nothing.
 * The owner writes a copy before the spawn that publishes it; the job's
 * reader gets the copy through that spawn's own synchronisation.
 * Checked by model/genmc/copy_arena.c with a mutant.
 */
#ifndef SPOOL_COPY_ARENA_H
#define SPOOL_COPY_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "platform/atomics.h"
#include "platform/stats.h"

#ifndef SPOOL__COPY_CHUNK
#define SPOOL__COPY_CHUNK ((size_t)64 * 1024) /* a power of two: chunks align to it */
#endif
#define SPOOL__COPY_ALIGN 16u
/* More than the copies a chunk holds (at least SPOOL__COPY_ALIGN bytes each). */
#define SPOOL__COPY_BIAS (SPOOL__COPY_CHUNK / SPOOL__COPY_ALIGN + 1)

typedef struct spool__copy_chunk {
    atomic_size_t count;
} spool__copy_chunk_t;

/* The first copy's offset in a chunk: past the count, aligned. */
#define SPOOL__COPY_FIRST                                                                          \
    ((sizeof(spool__copy_chunk_t) + SPOOL__COPY_ALIGN - 1) / SPOOL__COPY_ALIGN * SPOOL__COPY_ALIGN)

/* A worker's: touched by that worker only. */
typedef struct spool__copy_arena {
    spool__copy_chunk_t *chunk; /* NULL: none yet */
    size_t used;                /* bytes taken from the chunk's front */
    size_t taken;               /* copies taken from it */
} spool__copy_arena_t;

static inline spool__copy_chunk_t *spool__copy_chunk_of(const void *copy)
{
    return (spool__copy_chunk_t *)((uintptr_t)copy & ~(uintptr_t)(SPOOL__COPY_CHUNK - 1));
}

/* Drops n counts of c; true if that was the last (then c is the caller's to
 * free or reuse). */
static inline bool spool__copy_chunk_drop(spool__copy_chunk_t *c, size_t n)
{
    /* Acq_rel pairs with every other drop of this count: the drop that
     * reaches zero has seen each copy's release and the owner's retire,
     * and so every access to the chunk's copies, happen before it. */
    SPOOL__COUNT(rmw_counts);
    return atomic_fetch_sub_explicit(&c->count, n, memory_order_acq_rel) == n;
}

/* Any thread: releases a copy taken from some arena. */
static inline void spool__copy_release(void *copy)
{
    spool__copy_chunk_t *c = spool__copy_chunk_of(copy);
    if (spool__copy_chunk_drop(c, 1))
        free(c);
}

/* Owner: retires the current chunk (its count becomes the copies not yet
 * released).  Returns it if none is left (the caller may reuse it), else
 * NULL. */
static inline spool__copy_chunk_t *spool__copy_retire(spool__copy_arena_t *a)
{
    spool__copy_chunk_t *c = a->chunk;
    a->chunk = NULL;
    if (c != NULL && spool__copy_chunk_drop(c, SPOOL__COPY_BIAS - a->taken))
        return c;
    return NULL;
}

/* Owner: starts chunk c (fresh, or one retire returned). */
static inline void spool__copy_start(spool__copy_arena_t *a, spool__copy_chunk_t *c)
{
    /* Relaxed: c is the owner's alone until a copy of it is published. */
    atomic_store_explicit(&c->count, SPOOL__COPY_BIAS, memory_order_relaxed);
    a->chunk = c;
    a->used = SPOOL__COPY_FIRST;
    a->taken = 0;
}

/* Owner: a copy of size bytes (at most a quarter of a chunk), aligned to
 * SPOOL__COPY_ALIGN; NULL if out of memory. */
static inline void *spool__copy_take(spool__copy_arena_t *a, size_t size)
{
    size = (size + SPOOL__COPY_ALIGN - 1) / SPOOL__COPY_ALIGN * SPOOL__COPY_ALIGN;
    if (SPOOL__UNLIKELY(a->chunk == NULL || a->used + size > SPOOL__COPY_CHUNK)) {
        spool__copy_chunk_t *c = spool__copy_retire(a);
        if (c == NULL)
            c = aligned_alloc(SPOOL__COPY_CHUNK, SPOOL__COPY_CHUNK);
        if (c == NULL)
            return NULL;
        spool__copy_start(a, c);
    }
    void *p = (char *)a->chunk + a->used;
    a->used += size;
    a->taken++;
    return p;
}

#endif
