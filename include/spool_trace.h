/*
 * spool_trace.h: looking into a pool: its workers' counters (spool_pool_stats)
 * and its timeline (spool_pool_trace_*).
 *
 * Part of spool's public interface: spool.h includes it, and it includes
 * spool.h, so that either may be included first; the conventions that
 * spool.h's opening comment states hold here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_H_TRACE
#define SPOOL_H_TRACE

#include "spool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-worker counters, kept when spool is built with -DSPOOL_STATS=ON.  New
 * counters are added at the end only. */
typedef struct spool_worker_stats {
    unsigned long long jobs_executed;    /* jobs taken from a deque or the injector and run */
    unsigned long long steals;           /* jobs stolen from other workers */
    unsigned long long failed_steals;    /* steal attempts that found nothing or lost a race */
    unsigned long long sleeps;           /* times the worker blocked on its condvar */
    unsigned long long wakeups_received; /* times another thread woke it */
    unsigned long long wakeups_sent;     /* times it woke another worker */
    unsigned long long jobs_dropped;     /* jobs of cancelled scopes it dropped unrun (0.4) */
    unsigned long long jobs_run_at_spawn; /* scope spawns it ran at once: no memory (0.5) */
    /* Since 0.6: what its searches and posts cost.  A futex call is at
     * most one per sleep, per wake-up sent and per lock wait. */
    unsigned long long yields;      /* sched_yield calls while searching */
    unsigned long long lock_waits;  /* sleep locks it found held (then waited for) */
    unsigned long long wake_probes; /* other threads' sleep locks taken to find a sleeper */
    /* Read-modify-writes on lines other threads write, by line: */
    unsigned long long rmw_sleep;  /* the pool's sleep counters */
    unsigned long long rmw_counts; /* scope, group, broadcast and copy counts */
    unsigned long long rmw_queues; /* the pool's queue, FIFO queues, broadcast queues */
    unsigned long long rmw_deques; /* a deque's shared end: steals, last-job races */
} spool_worker_stats_t;

/*
 * spool_pool_stats: reads worker index's counters (a snapshot: the worker
 * may be counting while it is read) into out, writing at most out_size
 * bytes: pass sizeof *out, so that a newer library with more counters
 * writes only those the caller knows (and an older one zeroes the rest).
 * Threads: any.
 * Returns: 0; EINVAL if pool or out is NULL, index is not one its jobs run
 * on (its workers', and the caller slot's in the global pool), or out_size
 * is smaller than one counter; ENOTSUP if spool was built without
 * SPOOL_STATS.
 */
SPOOL_API int spool_pool_stats(const spool_pool_t *pool, unsigned index, spool_worker_stats_t *out,
                               size_t out_size);

/*
 * spool_pool_trace_start: starts recording the pool's timeline: each worker
 * writes, into a ring of records_per_worker records (40 bytes each) of its
 * own, every job it runs from its main loop or while waiting (with the
 * user function and argument, and whether it came from its own deque, was
 * stolen from worker k, injected from outside or broadcast), every wait
 * for a stolen half of a join, every search for work and every sleep.  A join whose second half is taken back by its own worker is
 * not recorded (it costs nothing).  Recording takes no lock, no
 * read-modify-write and no allocation; a full ring drops its oldest record
 * and counts the loss.  A worker that is busy when the trace starts joins it
 * at its next wait or search.  The rings are kept, for
 * spool_pool_trace_write, until the pool is destroyed (each start
 * allocates new ones).  Setting SPOOL_TRACE=path.json or path.html in the
 * environment starts a trace (of SPOOL_TRACE_RECORDS records, default
 * 65536) in every pool created, the global one included, and writes it
 * when the pool is destroyed (the global pool: at exit); %p in the path
 * becomes the process id, %n the pool's number.
 * Threads: any, inside or outside the pool.
 * Returns: 0; EINVAL if pool is NULL or records_per_worker is 0; EALREADY
 * if a trace is being recorded; ENOMEM; ENOTRECOVERABLE if the pool was
 * created before fork(); ENOTSUP if spool was built without tracing
 * (-DSPOOL_TRACE=OFF).
 */
SPOOL_API int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker);

/*
 * spool_pool_trace_stop: stops recording; what was recorded stays, for
 * spool_pool_trace_write.
 * Threads: any.
 * Returns: 0; EINVAL if pool is NULL; EALREADY if no trace was being
 * recorded; ENOTRECOVERABLE, ENOTSUP as spool_pool_trace_start.
 */
SPOOL_API int spool_pool_trace_stop(spool_pool_t *pool);

/*
 * spool_pool_trace_write: writes the newest trace (running or stopped) to
 * path, in the format its extension names: ".json", Chrome's trace event
 * format, which Perfetto UI (ui.perfetto.dev) and chrome://tracing open (a
 * row per worker, a span per job, wait, search and sleep, an arrow from
 * victim to thief for every steal); ".html", one self-contained page that
 * a browser opens offline (the timeline with zoom, and per worker the busy,
 * searching and sleeping shares, jobs, steals and wake-ups).  Functions
 * are named from the dynamic symbol table (link executables with -rdynamic
 * to see static ones), else as object+offset for addr2line.  The trace may
 * still be recording: the file holds what was complete when it was read,
 * and the trace is kept, so the call may be repeated.
 * Threads: any.
 * Returns: 0; EINVAL if pool or path is NULL, the extension is neither
 * .json nor .html, or nothing was ever traced; ENOMEM; the errno of the
 * failing file call (EIO if it gave none) if the file cannot be written;
 * ENOTRECOVERABLE, ENOTSUP as spool_pool_trace_start.
 */
SPOOL_API int spool_pool_trace_write(spool_pool_t *pool, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SPOOL_H_TRACE */
