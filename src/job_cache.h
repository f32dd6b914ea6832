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

#include "job.h"

#define SPOOL__JOB_BATCH 256u

/*
 * Poisoning: a block on a free list is no job's any more (job.h: execute
 * must not touch its job once done), so everything in it but the free-list
 * link (its first word) is made unaddressable while it waits, under
 * AddressSanitizer and in the memcheck build (-DSPOOL_VALGRIND=ON); handed
 * out again it becomes addressable (and, for memcheck, undefined).  A use of
 * a job's block after its run is then reported, as for malloc'd memory.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SPOOL__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPOOL__ASAN 1
#endif
#endif

#if defined(SPOOL__ASAN)
#include <sanitizer/asan_interface.h>
#define SPOOL__POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SPOOL__UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#elif defined(SPOOL_MEMCHECK)
#include <valgrind/memcheck.h>
#define SPOOL__POISON(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS(p, n))
#define SPOOL__UNPOISON(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED(p, n))
#else
#define SPOOL__POISON(p, n) ((void)(p), (void)(n))
#define SPOOL__UNPOISON(p, n) ((void)(p), (void)(n))
#endif

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
    /* Spare spawn blocks that workers spilled (scope.c), for any worker to
     * take back; guarded by lock. */
    struct spool__spawn_block *spare_blocks;
    unsigned spare_block_count;
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
