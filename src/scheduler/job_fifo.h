/*
 * Internal: a FIFO of calls and its tickets (fifo.md).
 *
 * Per-thread FIFO order on LIFO deques: a FIFO spawn from worker W pushes
 * the call (fn, arg) on W's FIFO (of the scope, or W's own FIFO for
 * detached spawn_fifo) and a reference to the FIFO on W's deque.  Whoever
 * runs a reference (W, or a thief) takes the FIFO's front call and runs
 * that, so all references to one FIFO are worth the same, and W counts them
 * instead of pushing each: a ticket is one deque job holding `count`
 * references.  W adds a reference to the FIFO's open ticket while that
 * ticket is its newest job, private and not full, else pushes a new ticket,
 * the open one from then.  Publication closes it.  A FIFO holds exactly as
 * many calls as its tickets hold references.
 *
 * Every call of a FIFO belongs to the same scope (or to the pool, for a
 * worker's own FIFO), so a call is its function and argument only, 16 bytes
 * in the queue (fifo_queue.h), and the FIFO's ops say how to run one.
 *
 * Credits (scope.md): the FIFO spawns of a scope's own
 * worker are local, not counted on the scope's latch while their
 * references are private; they go into local tickets (their own kind, never
 * joined by a counted reference), whose publication counts them.
 */
#ifndef SPOOL_JOB_FIFO_H
#define SPOOL_JOB_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue/fifo_queue.h"
#include "job/job.h"

/* References per ticket: a thief takes at most this many with one steal. */
#define SPOOL__FIFO_TICKET_CAP 64u

/* Runs one call of a FIFO whose context is ctx. */
typedef void (*spool__fifo_run_t)(void *ctx, spool__fifo_call_t call);

/* What a FIFO's calls are: how to run one for a counted reference (the
 * spawn was counted when made) and for a local one (its worker's, not
 * counted: NULL if the FIFO takes none), and how to count n local
 * references when their ticket is published. */
typedef struct spool__fifo_ops {
    /* The label of the FIFO's tickets (job.h): its scope's, or none. */
    spool__context_t (*label)(void *ctx);
    spool__fifo_run_t run;
    spool__fifo_run_t run_local;
    void (*count_local)(void *ctx, size_t n);
    /* Optional (NULL: run for each call): a counted reference's call run
     * without dropping its count, and n such counts dropped at once, so
     * that the holder of a published ticket drops the counts of the calls
     * it ran with one read-modify-write, as a counted spawn block's does. */
    spool__fifo_run_t run_uncounted;
    void (*counted_done)(void *ctx, size_t n);
} spool__fifo_ops_t;

typedef struct spool__job_fifo {
    /* Read by every taker, written once: before the queue's lines. */
    const spool__fifo_ops_t *ops;
    void *ctx; /* the scope, or the pool */
    spool__fifo_queue_t queue;
    /* Its worker's only: the ticket that more references may join while it
     * lies at open_index with nothing above it; NULL once closed or spent. */
    spool__heap_job_t *open_ticket;
    int64_t open_index;
} spool__job_fifo_t;

/* Returns 0 or ENOMEM. */
int spool__job_fifo_init(spool__job_fifo_t *f, const spool__fifo_ops_t *ops, void *ctx);
void spool__job_fifo_destroy(spool__job_fifo_t *f);
/* A FIFO on the heap, aligned for its queue; NULL if out of memory. */
spool__job_fifo_t *spool__job_fifo_new(const spool__fifo_ops_t *ops, void *ctx);
void spool__job_fifo_delete(spool__job_fifo_t *f);

/* The execute functions of a private ticket (never published: its FIFO's
 * worker runs it one reference at a time, as that many jobs), of counted
 * or of local references, and of a published one (whoever holds it runs
 * references until asked to hand the rest on, as a counted spawn block
 * does). */
void spool__fifo_ticket_private_execute(spool__job_t *job);
void spool__fifo_ticket_local_execute(spool__job_t *job);
void spool__fifo_ticket_execute(spool__job_t *job);

/* Is t, a FIFO's open ticket, still private and of the kind a local
 * (local) or counted push adds references to? */
static inline bool spool__fifo_ticket_is_open(const spool__heap_job_t *t, bool local)
{
    return t->ticket.base.execute ==
           (local ? spool__fifo_ticket_local_execute : spool__fifo_ticket_private_execute);
}

/* Publication of job, a ticket in the publishing worker's private part: a
 * private one is closed (no reference joins it any more).  Returns how many
 * references it holds. */
static inline size_t spool__fifo_ticket_published(spool__job_t *job)
{
    spool__heap_job_t *t = (spool__heap_job_t *)job;
    spool__job_fifo_t *f = t->ticket.fifo;
    if (job->execute != spool__fifo_ticket_execute) {
        /* The publisher runs inside the scope (its body or its end's
         * drain), whose body count is still held. */
        if (job->execute == spool__fifo_ticket_local_execute)
            f->ops->count_local(f->ctx, t->ticket.count);
        job->execute = spool__fifo_ticket_execute;
        if (f->open_ticket == t)
            f->open_ticket = NULL;
    }
    return t->ticket.count;
}

/* spool__worker_push_fifo's slow path (worker.h): the call fn(arg) on f
 * and a new ticket, the open one from then, pushed on w's deque.  0 or
 * ENOMEM. */
struct spool__worker;
int spool__job_fifo_push_ticket(struct spool__worker *w, spool__job_fifo_t *f, spool__fifo_fn_t fn,
                                void *arg, bool local);

#endif
