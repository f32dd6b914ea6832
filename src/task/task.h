/*
 * Internal: tasks with handles and dependencies (task.c), and their
 * completion queues (completions.c).  The protocol is in task.md.
 */
#ifndef SPOOL_TASK_H
#define SPOOL_TASK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

#include "platform/atomics.h"
#include "job/job.h"

/* Successors kept in the task itself; more spill to an array of their own. */
#define SPOOL__TASK_INLINE_SUCCESSORS 4

enum {
    SPOOL__TASK_CREATED,   /* not submitted */
    SPOOL__TASK_WAITING,   /* submitted, predecessors unfinished */
    SPOOL__TASK_READY,     /* its job is queued */
    SPOOL__TASK_RUNNING,
    SPOOL__TASK_DONE,      /* ran */
    SPOOL__TASK_CANCELLED  /* will not run */
};

struct spool__task_waiter;

struct spool_task {
    spool__job_t base; /* queued once ready */
    spool_fn fn;
    void *arg;
    spool_pool_t *pool; /* referenced (spool__pool_ref) while the task lives */
    /* The isolation region it was made ready in (its label, job.h): set
     * before its job is queued, read by whoever takes the job. */
    uint64_t region;
    /* SPOOL__TASK_*: moves by CAS only, forward only (task.md). */
    atomic_int state;
    /* References: the creator's, one per predecessor's list entry, one for
     * the scheduler from submit until the job ran or was dropped, and
     * temporary ones of a cycle check. */
    atomic_size_t refs;
    /* Unfinished predecessors, plus one until submitted: the one who takes it
     * to zero makes the task ready. */
    atomic_size_t pending;
    /* A spin lock guarding what follows (successors, waiters, finished). */
    atomic_int lock;
    bool finished; /* its successors and waiters were taken: no more join */
    size_t nsucc, succ_cap;
    spool_task_t **succ; /* succ_inline, or an array of its own */
    spool_task_t *succ_inline[SPOOL__TASK_INLINE_SUCCESSORS];
    struct spool__task_waiter *waiters;
    spool_completions_t *cq; /* set before submit, read once at the end */
    void *tag;
    uint64_t visit; /* the cycle check's mark (task_graph.c), under the graph lock */
};

/* The per-task spin lock.  Its sections are a few stores, so contention
 * is rare and brief. */
static inline void spool__task_lock(spool_task_t *t)
{
    /* Acquire pairs with the release store in spool__task_unlock: what the
     * last holder did under the lock is visible. */
    unsigned spins = 0;
    while (atomic_exchange_explicit(&t->lock, 1, memory_order_acquire) != 0) {
        while (atomic_load_explicit(&t->lock, memory_order_relaxed) != 0) {
            if (++spins < 64)
                spool__cpu_relax();
            else
                sched_yield();
        }
    }
}

static inline void spool__task_unlock(spool_task_t *t)
{
    /* Release pairs with the acquire exchange in spool__task_lock. */
    atomic_store_explicit(&t->lock, 0, memory_order_release);
}

static inline void spool__task_ref(spool_task_t *t)
{
    /* Relaxed: the caller holds a reference already. */
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

/* Drops a reference; the last one frees the task (task.c). */
void spool__task_unref(spool_task_t *t);

/* task.c's graph lock held: can `from` reach `to` through successor
 * lists?  1 yes, 0 no, -1 out of memory (task_graph.c). */
int spool__task_reaches(spool_task_t *from, spool_task_t *to);

/* Completion queues (completions.c): a slot for one post is reserved when a
 * task is given the queue, so that the post cannot fail. */
int spool__completions_reserve(spool_completions_t *cq);
void spool__completions_post(spool_completions_t *cq, void *tag);

#endif
