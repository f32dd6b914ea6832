/*
 * Internal: the pace of the entries a worker runs (spawn-block entries,
 * FIFO calls), a hint for publishing (deque.md, rule 4).
 *
 * A worker that runs an entry hides the rest of its private jobs until the
 * entry returns, from every worker that goes idle meanwhile.  For short
 * entries that is the price of the private fast path; a long one idles a
 * core for as long as it runs.  So before each entry the worker asks
 * whether its recent entries were coarse (took tuning.pace_coarse or
 * more each, at the mean pace since the last sample); if so it publishes
 * the rest first, which then costs little beside the entry.
 *
 * The clock (spool__ticks) is read only at samples: before every entry
 * while the entries are coarse, and at intervals that double up to
 * tuning.pace_every_max entries while they are fine, so that a fine entry
 * pays a decrement and a branch.  Between samples the answer is "fine": a
 * coarse answer samples again at the next entry.  An interval that spans
 * an idle time reads as coarse: one publication too many.  Owner only: the
 * worker's own fields, no atomics.
 */
#ifndef SPOOL_PACE_H
#define SPOOL_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "platform/clock.h"
#include "platform/tuning.h"


typedef struct spool__pace {
    uint64_t tick;  /* the clock at the last sample */
    uint32_t left;  /* entries until the next sample */
    uint32_t every; /* entries from one sample to the next */
} spool__pace_t;

/* enabled false: the answer is always "fine" (every is 0: see the
 * sample). */
static inline void spool__pace_init(spool__pace_t *p, bool enabled)
{
    p->tick = spool__ticks();
    p->left = 1;
    p->every = enabled ? 1 : 0;
}

/* Out of line: the sample, on one entry in every. */
bool spool__pace_sample(spool__pace_t *p);

/* Before an entry: were the entries before it coarse? */
static inline bool spool__pace_coarse(spool__pace_t *p)
{
    if (SPOOL__LIKELY(--p->left != 0))
        return false;
    return spool__pace_sample(p);
}

#endif
