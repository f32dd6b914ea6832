/* Internal: the job, the unit that deques and the injector carry. */
#ifndef SPOOL_JOB_H
#define SPOOL_JOB_H

#include <stddef.h>

/*
 * A job is intrusive: callers embed spool__job_t as the first member of their
 * own struct (on their stack for join, in a recycled block for spawns) and
 * queues carry only the pointer.  execute() receives that pointer back and
 * owns the job from then on: once it has signalled completion the memory may
 * vanish, so execute must not touch the job afterwards.
 */
typedef struct spool__job spool__job_t;
struct spool__job {
    void (*execute)(spool__job_t *job);
};

static inline void spool__job_execute(spool__job_t *job)
{
    job->execute(job);
}

/*
 * Publication (worker.c) of a private job: a job that holds several calls (a
 * scope's spawn block, a FIFO ticket; batch.c knows them) learns that it is
 * public from now on.  Returns how many calls the job stands for (1 for any
 * other job), so that publication wakes as many sleepers as a push of that
 * many jobs would.  The publishing worker runs inside the job's scope, if
 * it has one.
 */
size_t spool__job_published(spool__job_t *job);

/*
 * A heap job: a spawned job's 32-byte block, or a FIFO's ticket.  Blocks
 * come from per-worker free lists (job_cache.c), so steady-state spawning
 * does not call malloc.  A block on a free list is poisoned under AddressSanitizer and memcheck
 * (job_cache.h), so a use of it after its job ran is reported.
 */
typedef union spool__heap_job spool__heap_job_t;
union spool__heap_job {
    struct {
        spool__job_t base;
        void (*fn)(void); /* the user's function, cast back by execute */
        void *arg;
        void *ctx; /* the scope, or the pool of a detached spawn */
    } job;
    struct { /* a FIFO's ticket (job_fifo.h) */
        spool__job_t base;
        struct spool__job_fifo *fifo;
        size_t count; /* references to the FIFO's front it holds */
    } ticket;
    spool__heap_job_t *next_free;
};

#endif
