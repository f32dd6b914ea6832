/*
 * lace.h for spool: Lace's task macros and the part of its API that Lace's
 * benchmark programs use, mapped one for one onto typed tasks
 * (spool_typed.h), so that Lace's own fib, queens, knapsack and pi build
 * unchanged against spool (scripts/lace.sh builds them both ways).
 *
 *   TASK_n, VOID_TASK_n      SPOOL_TASK_n, SPOOL_VOID_TASK_n
 *   SPAWN, CALL, SYNC        SPOOL_SPAWN, SPOOL_CALL, SPOOL_SYNC
 *   RUN(f, ...)              SPOOL_RUN_IN(the pool lace_start made, f, ...)
 *   lace_start(w, dqsize)    a pool of w workers (0: one per CPU); dqsize
 *                            is ignored (a frame deque holds a million)
 *   lace_stop()              the pool destroyed
 *   lace_workers(), LACE_WORKER_ID   the pool's size, the worker's index
 *
 * A benchmark's tool, not part of the library.
 */
#ifndef SPOOL_BENCH_LACE_H
#define SPOOL_BENCH_LACE_H

/* What Lace's lace.h brings in, which its programs count on. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <spool_typed.h>

static spool_pool_t *spool_lace_pool;

static inline void lace_start(unsigned int workers, size_t dqsize)
{
    (void)dqsize;
    spool_config_t config = SPOOL_CONFIG_INIT;
    config.num_threads = workers;
    if (spool_pool_create(&config, &spool_lace_pool) != 0) {
        fprintf(stderr, "lace.h (spool): no pool of %u workers\n", workers);
        exit(1);
    }
}

static inline void lace_stop(void)
{
    spool_pool_destroy(spool_lace_pool);
    spool_lace_pool = NULL;
}

static inline unsigned int lace_workers(void)
{
    return spool_pool_num_threads(spool_lace_pool);
}

#define LACE_WORKER_ID ((unsigned)spool_current_thread_index())

#define TASK_0 SPOOL_TASK_0
#define TASK_1 SPOOL_TASK_1
#define TASK_2 SPOOL_TASK_2
#define TASK_3 SPOOL_TASK_3
#define TASK_4 SPOOL_TASK_4
#define TASK_5 SPOOL_TASK_5
#define TASK_6 SPOOL_TASK_6
#define VOID_TASK_0 SPOOL_VOID_TASK_0
#define VOID_TASK_1 SPOOL_VOID_TASK_1
#define VOID_TASK_2 SPOOL_VOID_TASK_2
#define VOID_TASK_3 SPOOL_VOID_TASK_3
#define VOID_TASK_4 SPOOL_VOID_TASK_4
#define VOID_TASK_5 SPOOL_VOID_TASK_5
#define VOID_TASK_6 SPOOL_VOID_TASK_6
#define SPAWN SPOOL_SPAWN
#define CALL SPOOL_CALL
#define SYNC SPOOL_SYNC
#define RUN(...) SPOOL_RUN_IN(spool_lace_pool, __VA_ARGS__)

#endif
