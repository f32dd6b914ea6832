/*
 * Internal: statistics (-DSPOOL_STATS), the counters spool_pool_stats
 * reads.  Each thread of a pool counts into its own worker's block, which
 * spool__worker_enter makes current; the lower layers (sleep, deques,
 * queues, latches) count through that thread-local pointer and know no
 * worker.  A thread outside any pool counts nothing.  Without SPOOL_STATS
 * every count vanishes.
 */
#ifndef SPOOL_STATS_H
#define SPOOL_STATS_H

#include "platform/atomics.h"

#ifdef SPOOL_STATS
typedef struct spool__stats {
    spool__stat_t jobs_executed, steals, failed_steals, wakeups_sent;
    /* sched_yield calls of a searcher (sleep.c). */
    spool__stat_t yields;
    /* Sleep locks (sleep.c) found held: the lock then waits, likely in the
     * kernel. */
    spool__stat_t lock_waits;
    /* Other threads' sleep locks taken to look for a sleeper to wake. */
    spool__stat_t wake_probes;
    /* Read-modify-writes on lines other threads write: the sleep counters;
     * scope, group, broadcast and copy counts; the pool's queue, FIFO and
     * broadcast queues; a deque's shared end (steals, the owner's race for
     * its last job, demand). */
    spool__stat_t rmw_sleep, rmw_counts, rmw_queues, rmw_deques;
} spool__stats_t;

extern _Thread_local spool__stats_t *spool__tls_stats;

/* Counts one event of kind field for the calling thread's worker. */
#define SPOOL__COUNT(field)                                                                    \
    do {                                                                                       \
        spool__stats_t *spool__st_ = spool__tls_stats;                                         \
        if (spool__st_ != NULL)                                                                \
            SPOOL__STAT_INC(spool__st_->field);                                                \
    } while (0)
#else
#define SPOOL__COUNT(field) ((void)0)
#endif

#endif
