/*
 * Internal: the wait layer (wait.c; wait.md).  Every place a worker waits,
 * yields or drains goes through one take, whose filter says what this
 * waiter may take, and one loop, which runs what it takes until what it
 * waits for is there (a latch) and sleeps when nothing is takeable.
 * Isolation is a filter (a region); the timeline records and decides
 * nothing.
 */
#ifndef SPOOL_WAIT_H
#define SPOOL_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

#include "job/job.h"
#include "sleep/latch.h"

struct spool__worker;

/* What a waiter may take (wait.md, "The filter").  region 0: any job of
 * its pool; else only jobs of that region, and the three exceptions
 * (broadcasts, installs by other pools' workers, and, outside the take, a
 * task its waiter claims).  local: only its own deque and broadcast queue
 * (spool_yield_local, the caller slot's leave), never stealing or the
 * pool's queue. */
typedef struct spool__filter {
    uint64_t region;
    bool local;
} spool__filter_t;

/* Where a taken job came from (SPOOL__FROM_*, the victim in bits 8 up),
 * and whether the take entered the job's context (left after it runs). */
typedef struct spool__taken {
    unsigned from;
    bool entered;
} spool__taken_t;

/* One take by worker w (the calling thread): a job that f accepts, in this
 * order: its own deque's newest, its oldest broadcast, then (not local) an
 * install by another pool's worker (region filters only), a job stolen
 * from another worker, the pool's queue (region 0 only).  The taker runs
 * in the job's context from here (t->entered).  NULL if none now. */
spool__job_t *spool__take(struct spool__worker *w, spool__filter_t f, spool__taken_t *t);

/* Runs a job w took, recorded on the timeline if it records, then leaves
 * the context the take entered. */
void spool__run_taken(struct spool__worker *w, spool__job_t *job, spool__taken_t t);

/* w's own newest job, if f accepts it (one older than the code running
 * now by its context: wait.md), popped; w then runs in its context (t).
 * NULL if there is none, or it is not accepted (it stays). */
spool__job_t *spool__take_own(struct spool__worker *w, spool__filter_t f, spool__taken_t *t);

/* As spool__take_own, for a job w has popped already from the private
 * part, at index i (its bottom now): false after pushing it back. */
bool spool__take_popped(struct spool__worker *w, spool__filter_t f, spool__job_t *job, int64_t i,
                        spool__taken_t *t);

/* The filter of the code running on w now. */
spool__filter_t spool__filter_here(struct spool__worker *w, bool local);

/* The wait: until latch is set, w takes and runs jobs, and sleeps when
 * none is takeable (counted idle, or, in a region, as an isolated
 * sleeper). */
void spool__wait_until_cold(struct spool__worker *w, spool__core_latch_t *latch);

static inline void spool__wait_until(struct spool__worker *w, spool__core_latch_t *latch)
{
    if (!spool__core_latch_probe(latch))
        spool__wait_until_cold(w, latch);
}

/* As spool__wait_until, recorded on the timeline as a wait for fn(arg)
 * (the stolen half of a join). */
void spool__wait_recorded_cold(struct spool__worker *w, spool__core_latch_t *latch,
                               void (*fn)(void *), void *arg);

static inline void spool__wait_recorded(struct spool__worker *w, spool__core_latch_t *latch,
                                        void (*fn)(void *), void *arg)
{
    if (!spool__core_latch_probe(latch))
        spool__wait_recorded_cold(w, latch, fn, arg);
}

/* A worker's top level, its thread's main loop: until its pool stops, w
 * takes and runs jobs (a new worker's first search is counted idle
 * already), and runs what a layer above lends it for (lend.h: its dock is
 * open while it searches). */
void spool__serve(struct spool__worker *w);

/* A yield: at most one job taken with w's filter (local: its own deque and
 * broadcasts only) and run. */
spool_yield_t spool__yield(struct spool__worker *w, bool local);

/* Runs every job w's filter takes from its own deque and broadcast queue
 * until none is left (the caller slot's leave). */
void spool__drain_local(struct spool__worker *w);

#endif
