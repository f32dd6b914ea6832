/* Internal: the job, the unit that deques and the injector carry, and the
 * table of job kinds (job_kinds.c; job.md says what each kind is). */
#ifndef SPOOL_JOB_H
#define SPOOL_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/context.h"
#include "spool_inline.h"

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

/* What a job will run: the user's function and argument, for the timeline.
 * Read before the job runs (its memory may be gone after).  fn is 0 if
 * unknown. */
typedef struct spool__job_info {
    uint64_t fn, arg;
} spool__job_info_t;

static inline uint64_t spool__fn_bits(void (*fn)(void))
{
    return (uint64_t)(uintptr_t)fn;
}

/*
 * A kind of job: one row of the table in job_kinds.c, defined beside the
 * kind's code (SPOOL__JOB_KIND_ROW).  Every question about a job that is not its own execute's
 * (what it is, where it belongs, what publishing it means, what it will
 * run) goes through its kind, found by spool__job_kind.
 */
typedef struct spool__job_kind {
    const char *name;
    void (*execute)(spool__job_t *job);
    /* The job's label: the scope it belongs to and the isolation region it
     * was made in, carried by the job itself (a heap job outlives the
     * context entry it was made under).  NULL for a join frame, whose
     * context is its deque position's (context.h), exact for a job that
     * lives on its maker's stack. */
    spool__context_t (*label)(const spool__job_t *job);
    /* Publication of the job from its owner's private part: it learns that
     * it is public (a local block or ticket becomes counted) and returns
     * how many calls it stands for.  NULL: one call, nothing to learn. */
    size_t (*published)(spool__job_t *job);
    /* The call it will run next, for the timeline. */
    void (*describe)(const spool__job_t *job, spool__job_info_t *info);
    /* Its calls are recorded one by one by its own execute while a
     * timeline records (spawn blocks, FIFO tickets), not as one job. */
    bool records_calls;
    /* Whether the job is one a worker of another pool waits for (an
     * install from a worker), which an isolated waiter may take from the
     * pool's queue.  NULL: never. */
    bool (*from_worker)(const spool__job_t *job);
} spool__job_kind_t;

/* The kind of job (a job the caller holds, or reads from a slot it owns):
 * the one place where execute functions are compared, one row looked up by
 * a hash of the execute function.  Aborts on a job of no known kind. */
const spool__job_kind_t *spool__job_kind(const spool__job_t *job);

/* Makes kind, a spool__job_kind_t defined at file scope beside its code, a
 * row of the table spool__job_kind reads: a pointer to it in the section
 * spool_kinds of the library's image, which the linker gathers (job.md), so
 * that this layer names no kind. */
#define SPOOL__JOB_KIND_ROW(kind)                                                                  \
    __attribute__((used, section("spool_kinds"))) static const spool__job_kind_t *const            \
        kind##_row = &kind

/* The call job will run next, for the timeline (its kind's describe). */
static inline void spool__job_describe(const spool__job_t *job, spool__job_info_t *info)
{
    spool__job_kind(job)->describe(job, info);
}

/* Is job a join frame (spool_join's b, spool_fork_inline's)?  The common
 * case of every take, inline.  A join frame of a program built against
 * inline ABI 3 (job/abi_v3.h) is of a kind of its own (join.c), which
 * answers every question as this one does. */
static inline bool spool__job_is_join(const spool__job_t *job)
{
    return job->execute == spool__join_execute_v4;
}

/* job's label (see spool__job_kind_t.label); a join frame's is not
 * carried: false. */
static inline bool spool__job_label(const spool__job_t *job, spool__context_t *label)
{
    if (spool__job_is_join(job))
        return false;
    const spool__job_kind_t *k = spool__job_kind(job);
    if (k->label == NULL)
        return false;
    *label = k->label(job);
    return true;
}

/* A published job's deque tag (deque.h), which an isolated thief reads
 * before it takes the job: 0 for a join frame (its context is its
 * position's), else its label's region + 1. */
static inline uint64_t spool__job_tag(const spool__job_t *job)
{
    spool__context_t label;
    return spool__job_label(job, &label) ? label.region + 1 : 0;
}

static inline uint64_t spool__tag_region(uint64_t tag)
{
    return tag - 1;
}

/*
 * Publication (worker.c) of a private job: a job that holds several calls (a
 * scope's spawn block, a FIFO ticket) learns that it is public from now on.
 * Returns how many calls the job stands for (1 for any other job), so that
 * publication wakes as many sleepers as a push of that many jobs would.  The
 * publishing worker runs inside the job's scope, if it has one.
 */
static inline size_t spool__job_published(spool__job_t *job)
{
    if (spool__job_is_join(job))
        return 1;
    const spool__job_kind_t *k = spool__job_kind(job);
    return k->published != NULL ? k->published(job) : 1;
}

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

/* A heap job's call, for the timeline. */
static inline void spool__describe_heap_job(const spool__job_t *job, spool__job_info_t *info)
{
    const spool__heap_job_t *h = (const spool__heap_job_t *)job;
    info->fn = spool__fn_bits(h->job.fn);
    info->arg = (uint64_t)(uintptr_t)h->job.arg;
}

#endif
