/*
 * Internal: a FIFO of jobs and its tickets (seed 003; deque.md, "FIFO
 * tickets").
 *
 * Per-thread FIFO order on LIFO deques: a FIFO spawn from worker W pushes
 * the real job on W's FIFO (of the scope, or W's own FIFO for detached
 * spawn_fifo) and a reference to the FIFO on W's deque.  Whoever runs a
 * reference (W, or a thief) takes the FIFO's front job and runs that, so all
 * references to one FIFO are worth the same, and W counts them instead of
 * pushing each: a ticket is one deque job holding `count` references.  W
 * adds a reference to the FIFO's open ticket while that ticket is its
 * newest job, private and not full, else pushes a new ticket, the open one
 * from then.  Publication closes it.  A FIFO holds exactly as many jobs as
 * its tickets hold references.
 *
 * The queue is a Chase-Lev deque used from both ends in one direction only:
 * W alone pushes at the bottom, and everyone (W included) takes at the top
 * with the thieves' CAS, so FIFO spawns take no lock (a mutex here made two
 * threads slower than one on a stream of FIFO spawns).
 */
#ifndef SPOOL_JOB_FIFO_H
#define SPOOL_JOB_FIFO_H

#include <stddef.h>
#include <stdint.h>

#include "deque.h"
#include "job.h"

/* References per ticket: a thief takes at most this many with one steal. */
#define SPOOL__FIFO_TICKET_CAP 64u

typedef struct spool__job_fifo {
    spool__deque_t queue; /* pushed by its worker only; taken at the top */
    /* Its worker's only: the ticket that more references may join while it
     * lies at open_index with nothing above it; NULL once closed or spent. */
    spool__heap_job_t *open_ticket;
    int64_t open_index;
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

/* The execute functions of a private ticket (never published: its FIFO's
 * worker runs it one reference at a time, as that many jobs) and of a
 * published one (whoever holds it runs references until asked to hand the
 * rest on, as a counted spawn block does). */
void spool__fifo_ticket_private_execute(spool__job_t *job);
void spool__fifo_ticket_execute(spool__job_t *job);

/* Publication of job, a ticket in the publishing worker's private part: a
 * private one is closed (no reference joins it any more).  Returns how many
 * references it holds. */
static inline size_t spool__fifo_ticket_published(spool__job_t *job)
{
    spool__heap_job_t *t = (spool__heap_job_t *)job;
    if (job->execute == spool__fifo_ticket_private_execute) {
        job->execute = spool__fifo_ticket_execute;
        if (t->ticket.fifo->open_ticket == t)
            t->ticket.fifo->open_ticket = NULL;
    }
    return t->ticket.count;
}

/* If job is a ticket, spends one of its references (the rest handed on, as
 * its execute would) and returns the FIFO's job that reference stands for
 * (run that one instead); else returns job. */
spool__job_t *spool__job_fifo_resolve(spool__job_t *job);

#endif
