/*
 * Internal: recycling of fixed-size blocks that one worker takes and any
 * worker gives back (a scope's spawn blocks: made by the spawning worker,
 * freed by whichever worker runs their last entry).
 *
 * Each worker keeps up to SPOOL__BLOCK_CACHE_KEEP spare blocks in a list of
 * its own (no lock).  One more spills them all to the pool's depot, which
 * holds up to that many per worker (past that, the block and the older half
 * of the worker's spares go back to malloc); a worker with no spare takes up
 * to that many from the depot before it calls malloc.  So blocks that
 * thieves free reach their producer again a batch per lock, instead of a
 * malloc on one thread and a free on another per block.  The size of a
 * batch sets how often the depot's lock is taken (bench/'s nqueens at 2
 * threads shows it).
 */
#ifndef SPOOL_BLOCK_CACHE_H
#define SPOOL_BLOCK_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "platform/atomics.h"
#include "platform/poison.h"

#define SPOOL__BLOCK_CACHE_KEEP 64u

/* A spare block: its first word links it, the rest is poisoned. */
typedef struct spool__block spool__block_t;
struct spool__block {
    spool__block_t *next;
};

/* A worker's spares: its own, no lock. */
typedef struct spool__block_cache {
    spool__block_t *spares;
    unsigned count;
} spool__block_cache_t;

/* The pool's spares, for every worker; guarded by lock. */
typedef struct spool__block_depot {
    pthread_mutex_t lock;
    spool__block_t *spares;
    unsigned count;
    unsigned cap; /* SPOOL__BLOCK_CACHE_KEEP per worker */
} spool__block_depot_t;

/* A depot for a pool of that many workers.  Every block that passes
 * through it and its workers' caches has one size, at least a pointer's,
 * which each call below is given.  0 or an errno value. */
int spool__block_depot_init(spool__block_depot_t *d, unsigned workers);
void spool__block_depot_destroy(spool__block_depot_t *d);
/* Frees a worker's spares (its pool is being freed). */
void spool__block_cache_drain(spool__block_cache_t *c);

/* Slow paths of get (c has no spare: a batch from the depot, else malloc)
 * and put (c is full). */
void *spool__block_refill(spool__block_cache_t *c, spool__block_depot_t *d, size_t size);
void spool__block_spill(spool__block_cache_t *c, spool__block_depot_t *d, void *block,
                        size_t size);

/* For a thread with no cache of d's pool (outside the pool): a block from
 * the depot, else malloc; NULL if out of memory.  And back: to the depot if
 * it has room, else free. */
void *spool__block_depot_get(spool__block_depot_t *d, size_t size);
void spool__block_depot_put(spool__block_depot_t *d, void *block, size_t size);

/* One of the calling worker's spares in c, of size bytes, contents
 * undefined; NULL if it has none. */
static inline void *spool__block_take_spare(spool__block_cache_t *c, size_t size)
{
    spool__block_t *b = c->spares;
    if (SPOOL__UNLIKELY(b == NULL))
        return NULL;
    c->spares = b->next;
    c->count--;
    SPOOL__UNPOISON(b, size);
    return b;
}

/* From the calling worker's cache c (of d's pool): a block of size bytes,
 * contents undefined; NULL if out of memory. */
static inline void *spool__block_get(spool__block_cache_t *c, spool__block_depot_t *d,
                                     size_t size)
{
    void *b = spool__block_take_spare(c, size);
    return b != NULL ? b : spool__block_refill(c, d, size);
}

/* Would spool__block_put take its slow path (spill)? */
static inline bool spool__block_cache_full(const spool__block_cache_t *c)
{
    return c->count >= SPOOL__BLOCK_CACHE_KEEP;
}

/* Gives block back to the calling worker's cache c.  The caller must not
 * touch it afterwards. */
static inline void spool__block_put(spool__block_cache_t *c, spool__block_depot_t *d, void *block,
                                    size_t size)
{
    if (SPOOL__UNLIKELY(spool__block_cache_full(c))) {
        spool__block_spill(c, d, block, size);
        return;
    }
    spool__block_t *b = block;
    b->next = c->spares;
    SPOOL__POISON((char *)b + sizeof b->next, size - sizeof b->next);
    c->spares = b;
    c->count++;
}

#endif
