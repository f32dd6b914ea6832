/*
 * Internal: a thief's demand, delayed while its victim makes jobs about as
 * fast as the thief runs them (deque.md, "The demand, delayed").
 *
 * A thief that finds a victim's public part empty demands (rule 2), and
 * the victim publishes what it has at its next push or pop.  When the
 * victim is a spawner whose calls the thief runs as fast as they come, that
 * is a few calls per demand, and each demand costs both of them a round of
 * cache misses: the two settle into a ping-pong that is slower than one
 * thread.  So a thief that has just finished a stolen spawn block or FIFO
 * ticket of few calls, soon after it stole it, waits a little before it
 * demands from that victim again, watching (read-only) for the victim to
 * publish meanwhile.  The wait is bounded, and the demand is made after
 * it: the protocol is unchanged, only when a thief asks.  The marks are
 * the thief's own fields; the wait reads the victim's top and split
 * relaxed.
 */
#ifndef SPOOL_DEMAND_H
#define SPOOL_DEMAND_H

#include <stddef.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "deque/deque.h"
#include "platform/clock.h"
#include "platform/tuning.h"

/* Its bounds are tuning.h's demand_*: a stolen block or ticket of fewer
 * than demand_few calls, finished within demand_quick of its steal, marks
 * its victim as such a spawner; a demand of that victim within
 * demand_recent of the mark waits up to demand_wait. */

typedef struct spool__demand {
    unsigned victim;     /* of the last steal */
    uint64_t steal_tick; /* the clock at the last steal */
    uint64_t mark_tick;  /* the clock at the mark; 0: none since that steal */
} spool__demand_t;

/* A steal from victim succeeded. */
static inline void spool__demand_stolen(spool__demand_t *m, unsigned victim)
{
    m->victim = victim;
    m->steal_tick = spool__ticks();
    m->mark_tick = 0;
}

/* The thief finished the job it stole last, a spawn block or FIFO ticket
 * of calls calls: marks the victim if the job was small and quick.  Once
 * per stolen block or ticket, out of line. */
void spool__demand_stolen_done(spool__demand_t *m, size_t calls);

/* Out of line: the wait. */
void spool__demand_wait(spool__demand_t *m, spool__deque_t *d);

/* Before a steal from victim, whose deque is d, which may demand: waits
 * first if victim is marked, and the mark is recent (then clears it). */
static inline void spool__demand_before(spool__demand_t *m, unsigned victim, spool__deque_t *d)
{
    if (SPOOL__UNLIKELY(m->mark_tick != 0) && victim == m->victim)
        spool__demand_wait(m, d);
}

#endif
