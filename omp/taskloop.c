/* Taskgroups and taskloops (omp.md, "Tasks"). */
#include <stdlib.h>

#include "env.h"
#include "gomp_abi.h"
#include "loop.h"
#include "task.h"
#include "team.h"

SPOOL_OMP_API void GOMP_taskgroup_start(void)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(spool__omp_thread());
    spool__omp_tgroup_t *g = malloc(sizeof *g);
    if (g == NULL)
        spool__omp_fatal("out of memory for a taskgroup");
    atomic_init(&g->count, 0);
    atomic_init(&g->cancelled, false);
    g->workshare = false;
    g->prev = cur->taskgroup;
    /* The enclosing taskgroup's task reductions hold in this one too. */
    spool__omp_tgroup_t *outer = cur->taskgroup != NULL ? cur->taskgroup : cur->group;
    g->reductions = outer != NULL ? outer->reductions : NULL;
    g->kmp_reductions = outer != NULL ? outer->kmp_reductions : NULL;
    cur->taskgroup = g;
}

SPOOL_OMP_API void GOMP_taskgroup_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup;
    if (g == NULL)
        spool__omp_fatal("GOMP_taskgroup_end: no taskgroup is open in this task");
    spool__omp_task_wait_count(thr, &g->count);
    cur->taskgroup = g->prev;
    free(g);
}

bool spool__omp_taskgroup_cancel(spool__omp_thread_t *thr)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup != NULL ? cur->taskgroup : cur->group;
    if (g == NULL)
        return false;
    /* A worksharing construct's taskgroup stands for the enclosing one. */
    if (g->workshare && g->prev != NULL)
        g = g->prev;
    /* Release pairs with the acquire loads of tasks about to run
     * (task.c, skipped) and of cancellation points. */
    atomic_store_explicit(&g->cancelled, true, memory_order_release);
    return true;
}

bool spool__omp_taskgroup_cancelled(spool__omp_thread_t *thr)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup != NULL ? cur->taskgroup : cur->group;
    return g != NULL && spool__omp_tgroup_cancelled(g);
}

/* ---- taskloop ---------------------------------------------------------------------- */

/* The bounds of one task's share, written into its copy's first two words
 * (gcc reads them there). */
typedef struct bounds {
    unsigned long long from, to;
    bool ull;
} bounds_t;

static void set_bounds(void *copy, void *arg)
{
    const bounds_t *b = arg;
    if (b->ull) {
        ((unsigned long long *)copy)[0] = b->from;
        ((unsigned long long *)copy)[1] = b->to;
    } else {
        ((long *)copy)[0] = (long)b->from;
        ((long *)copy)[1] = (long)b->to;
    }
}

/* A taskloop of n logical iterations from start by step (modulo 2^64). */
static void taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
                     long align, unsigned flags, unsigned long num_tasks, int priority,
                     unsigned long long start, unsigned long long end, unsigned long long step,
                     unsigned long long n, bool ull)
{
    /* reduction: the block's third word points at gcc's array, registered
     * on the taskloop's taskgroup; its d[2] at 0 tells gcc nothing was. */
    bool reduce = (flags & (SPOOL_OMP_TASK_REDUCTION | SPOOL_OMP_TASK_NOGROUP)) ==
                  SPOOL_OMP_TASK_REDUCTION;
    uintptr_t *rdata = reduce ? ((uintptr_t **)data)[2] : NULL;
    if (n == 0) {
        if (reduce)
            rdata[2] = 0;
        return;
    }
    spool__omp_thread_t *thr = spool__omp_thread();
    unsigned long long tasks, each, extra;
    if (flags & SPOOL_OMP_TASK_GRAINSIZE) {
        /* grainsize(g): tasks of g to 2g - 1 iterations (strict: of g,
         * the last one fewer). */
        unsigned long long g = num_tasks != 0 ? num_tasks : 1;
        if (flags & SPOOL_OMP_TASK_STRICT) {
            tasks = (n + g - 1) / g;
            each = g;
            extra = 0;
        } else {
            tasks = n / g != 0 ? n / g : 1;
            each = n / tasks;
            extra = n % tasks;
        }
    } else {
        /* num_tasks(k), or one task per thread of the team by default. */
        unsigned long long k = num_tasks;
        if (k == 0)
            k = thr->ts.team != NULL ? thr->ts.team->nthreads : 1;
        tasks = k < n ? k : n;
        each = n / tasks;
        extra = n % tasks;
    }
    bool group = !(flags & SPOOL_OMP_TASK_NOGROUP);
    if (group)
        GOMP_taskgroup_start();
    if (reduce)
        GOMP_taskgroup_reduction_register(rdata);
    bool if_clause = (flags & SPOOL_OMP_TASK_IF) != 0;
    unsigned task_flags = flags & (SPOOL_OMP_TASK_UNTIED | SPOOL_OMP_TASK_FINAL |
                                   SPOOL_OMP_TASK_MERGEABLE | SPOOL_OMP_TASK_PRIORITY);
    unsigned long long k = 0;
    for (unsigned long long t = 0; t < tasks && k < n; t++) {
        unsigned long long len = each + (t < extra);
        if (k + len > n)
            len = n - k;
        bounds_t b = {start + k * step, k + len == n ? end : start + (k + len) * step, ull};
        spool__omp_task_make(fn, data, cpyfn, size, align, if_clause, task_flags, NULL, priority,
                             NULL, set_bounds, &b);
        k += len;
    }
    if (group)
        GOMP_taskgroup_end();
}

SPOOL_OMP_API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                 long size, long align, unsigned flags, unsigned long num_tasks,
                                 int priority, long start, long end, long step)
{
    unsigned long long n = spool__omp_count_l(start, end, step);
    taskloop(fn, data, cpyfn, size, align, flags, num_tasks, priority, (unsigned long long)start,
             (unsigned long long)end, (unsigned long long)step, n, false);
}

SPOOL_OMP_API void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                                     void (*cpyfn)(void *, void *), long size, long align,
                                     unsigned flags, unsigned long num_tasks, int priority,
                                     spool__omp_ull start, spool__omp_ull end,
                                     spool__omp_ull step)
{
    unsigned long long n =
        spool__omp_count_u((flags & SPOOL_OMP_TASK_UP) != 0, start, end, step);
    taskloop(fn, data, cpyfn, size, align, flags, num_tasks, priority, start, end, step, n, true);
}
