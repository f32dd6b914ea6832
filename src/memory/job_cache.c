/* Recycling of heap-job blocks (see job_cache.h). */
#include "memory/job_cache.h"

#include "platform/test_hooks.h"

#include <errno.h>
#include <stdlib.h>

struct spool__job_slab {
    spool__job_slab_t *next;
    spool__heap_job_t jobs[SPOOL__JOB_BATCH];
};

int spool__job_pool_init(spool__job_pool_t *p)
{
    p->free = NULL;
    p->free_count = 0;
    p->slabs = NULL;
    return pthread_mutex_init(&p->lock, NULL);
}

void spool__job_pool_destroy(spool__job_pool_t *p)
{
    while (p->slabs != NULL) {
        spool__job_slab_t *next = p->slabs->next;
        free(p->slabs);
        p->slabs = next;
    }
    pthread_mutex_destroy(&p->lock);
}

/* Lock held: a fresh slab, all of its blocks but the first threaded onto a
 * list returned in *rest. */
static spool__heap_job_t *new_slab(spool__job_pool_t *p, spool__heap_job_t **rest)
{
    spool__job_slab_t *slab = malloc(sizeof *slab);
    if (slab == NULL)
        return NULL;
    slab->next = p->slabs;
    p->slabs = slab;
    for (unsigned i = 1; i + 1 < SPOOL__JOB_BATCH; i++)
        slab->jobs[i].next_free = &slab->jobs[i + 1];
    slab->jobs[SPOOL__JOB_BATCH - 1].next_free = NULL;
    for (unsigned i = 1; i < SPOOL__JOB_BATCH; i++)
        spool__job_poison(&slab->jobs[i]);
    *rest = &slab->jobs[1];
    return &slab->jobs[0];
}

spool__heap_job_t *spool__job_refill(spool__job_pool_t *p, spool__job_cache_t *cache)
{
    if (spool__test_spawn_alloc_fails())
        return NULL;
    spool__heap_job_t *job = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->free != NULL) {
        job = p->free;
        p->free = job->next_free;
        p->free_count--;
        if (cache != NULL) {
            /* Take up to a batch more for the worker's own list. */
            spool__heap_job_t *last = NULL;
            size_t taken = 0;
            for (spool__heap_job_t *j = p->free; j != NULL && taken < SPOOL__JOB_BATCH;
                 j = j->next_free) {
                last = j;
                taken++;
            }
            if (taken > 0) {
                cache->free = p->free;
                cache->free_count = taken;
                p->free = last->next_free;
                p->free_count -= taken;
                last->next_free = NULL;
            }
        }
    } else {
        spool__heap_job_t *rest;
        job = new_slab(p, &rest);
        if (job != NULL) {
            if (cache != NULL) {
                cache->free = rest;
                cache->free_count = SPOOL__JOB_BATCH - 1;
            } else {
                spool__heap_job_t *last = rest;
                while (last->next_free != NULL)
                    last = last->next_free;
                last->next_free = p->free;
                p->free = rest;
                p->free_count += SPOOL__JOB_BATCH - 1;
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
    if (job != NULL)
        spool__job_unpoison(job);
    return job;
}

void spool__job_spill(spool__job_pool_t *p, spool__job_cache_t *cache)
{
    /* Keep one batch; hand the rest to the pool. */
    spool__heap_job_t *keep_last = cache->free;
    for (unsigned i = 1; i < SPOOL__JOB_BATCH; i++)
        keep_last = keep_last->next_free;
    spool__heap_job_t *spill = keep_last->next_free, *spill_last = spill;
    size_t spilled = 1;
    while (spill_last->next_free != NULL) {
        spill_last = spill_last->next_free;
        spilled++;
    }
    keep_last->next_free = NULL;
    cache->free_count = SPOOL__JOB_BATCH;
    pthread_mutex_lock(&p->lock);
    spill_last->next_free = p->free;
    p->free = spill;
    p->free_count += spilled;
    pthread_mutex_unlock(&p->lock);
}

void spool__job_free_shared(spool__job_pool_t *p, spool__heap_job_t *job)
{
    pthread_mutex_lock(&p->lock);
    job->next_free = p->free;
    spool__job_poison(job);
    p->free = job;
    p->free_count++;
    pthread_mutex_unlock(&p->lock);
}

size_t spool__job_pool_slab_count(spool__job_pool_t *p)
{
    size_t n = 0;
    pthread_mutex_lock(&p->lock);
    for (spool__job_slab_t *s = p->slabs; s != NULL; s = s->next)
        n++;
    pthread_mutex_unlock(&p->lock);
    return n;
}
