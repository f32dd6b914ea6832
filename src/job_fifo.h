/*
 * Internal: a FIFO of jobs with its own "indirect" job (seed 003).
 *
 * Per-thread FIFO order on LIFO deques: a FIFO spawn from worker W pushes
 * the real job on W's FIFO (of the scope, or W's own FIFO for detached
 * spawn_fifo) and the FIFO's indirect job on W's deque.  Whoever runs an
 * indirect job (W, or a thief) takes the FIFO's front job and runs that.  All
 * the indirect entries of one FIFO are the same pointer, so pushing one
 * allocates nothing; the FIFO holds exactly as many jobs as the deques hold
 * references to its indirect job.
 *
 * The queue is a Chase-Lev deque used from both ends in one direction only:
 * W alone pushes at the bottom, and everyone (W included) takes at the top
 * with the thieves' CAS, so FIFO spawns take no lock (a mutex here made two
 * threads slower than one on a stream of FIFO spawns).
 */
#ifndef SPOOL_JOB_FIFO_H
#define SPOOL_JOB_FIFO_H

#include "deque.h"
#include "job.h"

typedef struct spool__job_fifo {
    spool__job_t indirect;
    spool__deque_t queue; /* pushed by its worker only; taken at the top */
} spool__job_fifo_t;

/* Returns 0 or ENOMEM. */
int spool__job_fifo_init(spool__job_fifo_t *f);
void spool__job_fifo_destroy(spool__job_fifo_t *f);
/* A FIFO on the heap, aligned for its deque; NULL if out of memory. */
spool__job_fifo_t *spool__job_fifo_new(void);
void spool__job_fifo_delete(spool__job_fifo_t *f);

/* Its worker only.  False (nothing pushed) if out of memory. */
static inline bool spool__job_fifo_push(spool__job_fifo_t *f, spool__job_t *job)
{
    return spool__deque_push_public(&f->queue, job);
}

/* If job is a FIFO's indirect job, takes and returns the FIFO's job it
 * stands for (run that one instead); else returns job. */
spool__job_t *spool__job_fifo_resolve(spool__job_t *job);

#endif
