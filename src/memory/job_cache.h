/*
 * Internal: recycling of heap-job blocks.
 *
 * Each worker keeps a free list; it refills from, and spills to, the pool's
 * shared list in batches under a mutex, and new blocks come in slabs owned by
 * the pool.  Threads outside the pool use the shared list directly.  Memory
 * is returned when the pool is destroyed; until then a pool keeps its
 * high-water mark of blocks.
 */
#ifndef SPOOL_JOB_CACHE_H
#define SPOOL_JOB_CACHE_H

#include <pthread.h>
#include <stddef.h>

#include "job/job.h"
#include "platform/poison.h"

#define SPOOL__JOB_BATCH 256u

/* A block enters a free list (its link already written) / leaves one. */
static inline void spool__job_poison(spool__heap_job_t *job)
{
    SPOOL__POISON((char *)job + sizeof job->next_free, sizeof *job - sizeof job->next_free);
}
static inline void spool__job_unpoison(spool__heap_job_t *job)
{
    SPOOL__UNPOISON(job, sizeof *job);
}

typedef struct spool__job_slab spool__job_slab_t;

/* The pool's part. */
typedef struct spool__job_pool {
    pthread_mutex_t lock;
    spool__heap_job_t *free; /* guarded by lock */
    size_t free_count;
    spool__job_slab_t *slabs;
} spool__job_pool_t;

/* A worker's part. */
typedef struct spool__job_cache {
    spool__heap_job_t *free;
    size_t free_count;
} spool__job_cache_t;

int spool__job_pool_init(spool__job_pool_t *p);
void spool__job_pool_destroy(spool__job_pool_t *p);

/* cache: the calling worker's cache, or NULL outside the pool.  NULL if out
 * of memory. */
spool__heap_job_t *spool__job_refill(spool__job_pool_t *p, spool__job_cache_t *cache);
void spool__job_spill(spool__job_pool_t *p, spool__job_cache_t *cache);
void spool__job_free_shared(spool__job_pool_t *p, spool__heap_job_t *job);
/* Slabs allocated so far (for tests and statistics). */
size_t spool__job_pool_slab_count(spool__job_pool_t *p);

static inline spool__heap_job_t *spool__job_alloc(spool__job_pool_t *p, spool__job_cache_t *cache)
{
    if (cache != NULL && cache->free != NULL) {
        spool__heap_job_t *job = cache->free;
        cache->free = job->next_free;
        cache->free_count--;
        spool__job_unpoison(job);
        return job;
    }
    return spool__job_refill(p, cache);
}

static inline void spool__job_free(spool__job_pool_t *p, spool__job_cache_t *cache,
                                   spool__heap_job_t *job)
{
    if (cache == NULL) {
        spool__job_free_shared(p, job);
        return;
    }
    job->next_free = cache->free;
    spool__job_poison(job);
    cache->free = job;
    if (++cache->free_count > 2 * SPOOL__JOB_BATCH)
        spool__job_spill(p, cache);
}

#endif
