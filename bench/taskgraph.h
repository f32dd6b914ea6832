/*
 * spool-taskgraph: the cost of tasks with dependencies, per task, for spool
 * (spool_task_*), OpenMP (tasks with depend clauses) and oneTBB (a flow
 * graph of continue_nodes), each building and running the same graph:
 *
 *   chain N   N tasks, each after the one before
 *   fan N     one task, then N tasks after it, then one task after all N
 *   dag N     N tasks, task i after up to three of the tasks before it
 *             (a fixed pseudo-random choice: taskgraph_preds)
 *
 * Every task adds its index to a per-task slot after checking that its
 * predecessors' slots are set, so that a wrong order is caught; the result
 * is the number of tasks that saw their predecessors done.
 */
#ifndef SPOOL_BENCH_TASKGRAPH_H
#define SPOOL_BENCH_TASKGRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TASKGRAPH_MAX_PREDS = 3 };

/* The predecessors of task i of graph kind ("chain", "fan", "dag") with n
 * middle tasks (fan: task 0 is the source, 1..n the middle, n + 1 the
 * sink); returns how many, into preds.  The sink of fan has n: see
 * taskgraph_fan_sink. */
static inline unsigned taskgraph_preds(char kind, long n, long i, long preds[TASKGRAPH_MAX_PREDS])
{
    if (kind == 'c') {
        if (i == 0)
            return 0;
        preds[0] = i - 1;
        return 1;
    }
    if (kind == 'f') {
        if (i == 0)
            return 0;
        preds[0] = 0; /* the middle tasks; the sink is special */
        return 1;
    }
    /* dag: up to three earlier tasks, from a hash of i */
    if (i == 0)
        return 0;
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15u;
    h ^= h >> 29;
    unsigned k = 1 + (unsigned)(h % 3);
    for (unsigned j = 0; j < k; j++) {
        h = h * 6364136223846793005u + 1442695040888963407u;
        long back = 1 + (long)((h >> 33) % (uint64_t)(i < 64 ? i : 64));
        preds[j] = i - back;
    }
    (void)n;
    return k;
}

/* The number of tasks of each graph. */
static inline long taskgraph_count(char kind, long n)
{
    return kind == 'f' ? n + 2 : n;
}

#ifdef __cplusplus
}
#endif

#endif
