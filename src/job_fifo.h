/*
 * Internal: a FIFO of jobs with its own "indirect" job (seed 003).
 *
 * Per-thread FIFO order on LIFO deques: a FIFO spawn from worker W pushes
 * the real job on W's FIFO (of the scope, or W's own FIFO for detached
 * spawn_fifo) and the FIFO's indirect job on W's deque.  Whoever runs an
 * indirect job (W, or a thief) pops the FIFO's front job and runs that.  All
 * the indirect entries of one FIFO are the same pointer, so pushing one
 * allocates nothing; the FIFO holds exactly as many jobs as the deques hold
 * references to its indirect job.
 */
#ifndef SPOOL_JOB_FIFO_H
#define SPOOL_JOB_FIFO_H

#include "injector.h"
#include "job.h"

typedef struct spool__job_fifo {
    spool__job_t indirect;
    spool__injector_t queue; /* popped by thieves too, hence MPMC */
} spool__job_fifo_t;

int spool__job_fifo_init(spool__job_fifo_t *f);
void spool__job_fifo_destroy(spool__job_fifo_t *f);

#endif
