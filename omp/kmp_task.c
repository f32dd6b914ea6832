/* The __kmpc_ door's tasks (omp.md, "The __kmpc_ door"): clang's task block
 * lives in a node of task.c's from its allocation on (the compiler builds
 * its privates in place, C++ objects included, so it never moves), behind
 * a head of the door's own. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gomp_abi.h"
#include "kmp_abi.h"
#include "task.h"
#include "team.h"

/* What comes before clang's task in its node's block. */
typedef struct kmp_head {
    spool__omp_tnode_t *node;
    spool__omp_task_t *saved; /* an undeferred task's: the task it interrupts */
    uint32_t task_size, shareds_size;
    int32_t flags;
    /* An untied task's body is parts: at a scheduling point clang's code
     * submits the task again for its next part and returns.  While a part
     * runs (running), such a submission only asks for the next (again),
     * which the same thread runs at once: an untied task may go on on any
     * thread at any time.  Both are the running thread's alone. */
    bool running, again;
    /* Its event is given out (detach): the task completes once its body
     * has ended and the event is fulfilled. */
    bool detached;
} kmp_head_t;

/* A detached task's handle is its node, and GOMP_task's detached tasks
 * have it in their block's first word (task.c's launch writes it there). */
_Static_assert(offsetof(kmp_head_t, node) == 0, "the head starts with its node");

#define HEAD_SIZE ((sizeof(kmp_head_t) + 15) & ~(size_t)15)
#define BLOCK_ALIGN 16

static kmp_head_t *head_of(spool__kmp_task_t *t)
{
    return (kmp_head_t *)(void *)((char *)t - HEAD_SIZE);
}

static size_t shareds_offset(size_t task_size)
{
    return (HEAD_SIZE + task_size + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
}

static inline __attribute__((always_inline)) spool__kmp_task_t *
task_new(int32_t flags, size_t task_size, size_t shareds_size, spool__kmp_routine_t entry)
{
    /* data1 and data2 follow part_id only where the flags use them. */
    size_t need = (flags & SPOOL_KMP_TASK_PRIORITY)      ? sizeof(spool__kmp_task_t)
                  : (flags & SPOOL_KMP_TASK_DESTRUCTORS) ? offsetof(spool__kmp_task_t, data2)
                                                         : offsetof(spool__kmp_task_t, data1);
    if (__builtin_expect(task_size < need || (task_size | shareds_size) > UINT32_MAX, 0))
        spool__omp_fatal("__kmpc_omp_task_alloc: a task of %zu bytes and shareds of %zu",
                         task_size, shareds_size);
    size_t at = shareds_offset(task_size);
    spool__omp_tnode_t *n = spool__omp_task_alloc(at + shareds_size, BLOCK_ALIGN);
    kmp_head_t *h = n->data;
    h->node = n;
    h->saved = NULL;
    h->task_size = (uint32_t)task_size;
    h->shareds_size = (uint32_t)shareds_size;
    h->flags = flags;
    h->running = h->again = false;
    /* A proxy task (a target task's) completes when its maker says so. */
    h->detached = flags & SPOOL_KMP_TASK_PROXY;
    spool__kmp_task_t *t = (spool__kmp_task_t *)(void *)((char *)h + HEAD_SIZE);
    /* data1 and data2 are read only where the flags say clang wrote them. */
    t->shareds = shareds_size > 0 ? (char *)h + at : NULL;
    t->routine = entry;
    t->part_id = 0;
    return t;
}

SPOOL_OMP_API spool__kmp_task_t *__kmpc_omp_task_alloc(spool__kmp_ident_t *loc, int32_t gtid,
                                                      int32_t flags, size_t sizeof_kmp_task_t,
                                                      size_t sizeof_shareds,
                                                      spool__kmp_routine_t task_entry)
{
    (void)loc;
    (void)gtid;
    return task_new(flags, sizeof_kmp_task_t, sizeof_shareds, task_entry);
}

/* The end of a task's body: its privates' destructors, if clang made any. */
static void destruct(kmp_head_t *h, spool__kmp_task_t *t, int32_t gtid)
{
    if (h->flags & SPOOL_KMP_TASK_DESTRUCTORS)
        t->data1.destructors(gtid, t);
}

/* A task's body, as task.c runs it (data: its block's head). */
static void run(void *data)
{
    kmp_head_t *h = data;
    spool__kmp_task_t *t = (spool__kmp_task_t *)(void *)((char *)h + HEAD_SIZE);
    int32_t gtid = spool__kmp_gtid();
    h->running = true;
    do {
        h->again = false;
        t->routine(gtid, t);
    } while (h->again);
    destruct(h, t, gtid);
}

/* A tied task's body, run included: it has one part. */
static void run_tied(void *data)
{
    kmp_head_t *h = data;
    spool__kmp_task_t *t = (spool__kmp_task_t *)(void *)((char *)h + HEAD_SIZE);
    int32_t gtid = spool__kmp_gtid();
    t->routine(gtid, t);
    destruct(h, t, gtid);
}

/* GOMP_task's flags and priority for a task of the __kmpc_ door. */
static unsigned gomp_flags(const kmp_head_t *h, const spool__kmp_task_t *t, int *priority)
{
    unsigned flags = 0;
    *priority = 0;
    if (h->flags & SPOOL_KMP_TASK_FINAL)
        flags |= SPOOL_OMP_TASK_FINAL;
    if (h->flags & SPOOL_KMP_TASK_PRIORITY) {
        flags |= SPOOL_OMP_TASK_PRIORITY;
        *priority = t->data2.priority;
    }
    if (h->detached)
        flags |= SPOOL_OMP_TASK_DETACH;
    return flags;
}

SPOOL_OMP_API int32_t __kmpc_omp_task(spool__kmp_ident_t *loc, int32_t gtid,
                                      spool__kmp_task_t *new_task)
{
    (void)loc;
    (void)gtid;
    kmp_head_t *h = head_of(new_task);
    if (h->running) {
        h->again = true; /* an untied task's next part */
        return 0;
    }
    /* A tied task without an event, included where GOMP_task's would be. */
    if (__builtin_expect((h->flags & SPOOL_KMP_TASK_TIED) && !h->detached, 1) &&
        spool__omp_task_included(h->node, run_tied, h->flags & SPOOL_KMP_TASK_FINAL))
        return 0;
    int priority;
    unsigned flags = gomp_flags(h, new_task, &priority);
    spool__omp_task_submit(h->node, run, true, flags, NULL, priority);
    return 0;
}

/* The event of a task made with detach: its node (omp_fulfill_event's
 * handle, as for gcc's tasks). */
SPOOL_OMP_API void *__kmpc_task_allow_completion_event(spool__kmp_ident_t *loc, int32_t gtid,
                                                       spool__kmp_task_t *task)
{
    (void)loc;
    (void)gtid;
    kmp_head_t *h = head_of(task);
    if (!(h->flags & SPOOL_KMP_TASK_DETACHABLE))
        spool__omp_fatal("__kmpc_task_allow_completion_event: a task not made detachable");
    h->detached = true;
    return h->node;
}

/* A proxy task is done, said from a thread of its team (in order) or from
 * any thread (out of order): its event. */
SPOOL_OMP_API void __kmpc_proxy_task_completed(int32_t gtid, spool__kmp_task_t *ptask)
{
    (void)gtid;
    __kmpc_proxy_task_completed_ooo(ptask);
}

SPOOL_OMP_API void __kmpc_proxy_task_completed_ooo(spool__kmp_task_t *ptask)
{
    kmp_head_t *h = head_of(ptask);
    if (!(h->flags & SPOOL_KMP_TASK_PROXY))
        spool__omp_fatal("__kmpc_proxy_task_completed: not a proxy task");
    omp_fulfill_event((omp_event_handle_t)(uintptr_t)h->node);
}

/* ---- dependences ------------------------------------------------------------------------- */

/* clang's dependence list as gcc's depend array (the form with counts in
 * its first five words): out and inout first, then mutexinoutset, then
 * in; dep must have room for 5 + n words. */
static void **gomp_depend(void **dep, int32_t n, const spool__kmp_depend_t *list, int32_t n2,
                          const spool__kmp_depend_t *list2)
{
    size_t k = 5, count[3] = {0, 0, 0};
    for (int pass = 0; pass < 3; pass++) {
        for (int32_t i = 0; i < n + n2; i++) {
            const spool__kmp_depend_t *d = i < n ? &list[i] : &list2[i - n];
            int kind;
            if (d->flags & 8)
                spool__omp_fatal("__kmpc_omp_task_with_deps: inoutset is not supported");
            if (d->flags & 4)
                kind = 1;
            else if (d->flags & 2)
                kind = 0;
            else if (d->flags & 1)
                kind = 2;
            else
                continue;
            if (kind != pass)
                continue;
            dep[k++] = (void *)d->base_addr;
            count[kind]++;
        }
    }
    dep[0] = NULL;
    dep[1] = (void *)(uintptr_t)(k - 5);
    dep[2] = (void *)(uintptr_t)count[0];
    dep[3] = (void *)(uintptr_t)count[1];
    dep[4] = (void *)(uintptr_t)count[2];
    return dep;
}

#define SPOOL_KMP_MAX_DEPS 4096

/* gcc's depend array for clang's two lists, on the heap (the caller
 * frees it); what names the entry point in an error line. */
static void **depend_array(const char *what, int32_t n, const spool__kmp_depend_t *list,
                           int32_t n2, const spool__kmp_depend_t *list2)
{
    if (n < 0 || n2 < 0 || n + n2 > SPOOL_KMP_MAX_DEPS)
        spool__omp_fatal("%s: %d dependences (at most %d)", what, n + n2, SPOOL_KMP_MAX_DEPS);
    void **dep = malloc((5 + (size_t)n + (size_t)n2) * sizeof *dep);
    if (dep == NULL)
        spool__omp_fatal("%s: out of memory", what);
    return gomp_depend(dep, n, list, n2, list2);
}

SPOOL_OMP_API int32_t __kmpc_omp_task_with_deps(spool__kmp_ident_t *loc, int32_t gtid,
                                                spool__kmp_task_t *new_task, int32_t ndeps,
                                                spool__kmp_depend_t *dep_list,
                                                int32_t ndeps_noalias,
                                                spool__kmp_depend_t *noalias_list)
{
    (void)loc;
    (void)gtid;
    void **dep = depend_array("__kmpc_omp_task_with_deps", ndeps, dep_list, ndeps_noalias,
                              noalias_list);
    kmp_head_t *h = head_of(new_task);
    int priority;
    unsigned flags = gomp_flags(h, new_task, &priority) | SPOOL_OMP_TASK_DEPEND;
    spool__omp_task_submit(h->node, run, true, flags, dep, priority);
    free(dep);
    return 0;
}

SPOOL_OMP_API void __kmpc_omp_wait_deps(spool__kmp_ident_t *loc, int32_t gtid, int32_t ndeps,
                                        spool__kmp_depend_t *dep_list, int32_t ndeps_noalias,
                                        spool__kmp_depend_t *noalias_list)
{
    (void)loc;
    (void)gtid;
    if (ndeps == 0 && ndeps_noalias == 0)
        return;
    void **dep =
        depend_array("__kmpc_omp_wait_deps", ndeps, dep_list, ndeps_noalias, noalias_list);
    GOMP_taskwait_depend(dep);
    free(dep);
}

/* ---- undeferred tasks, waits ------------------------------------------------------------- */

SPOOL_OMP_API void __kmpc_omp_task_begin_if0(spool__kmp_ident_t *loc, int32_t gtid,
                                             spool__kmp_task_t *task)
{
    (void)loc;
    (void)gtid;
    kmp_head_t *h = head_of(task);
    spool__omp_task_begin_undeferred(h->node, h->flags & SPOOL_KMP_TASK_FINAL, h->detached,
                                     &h->saved);
    h->running = true;
}

SPOOL_OMP_API void __kmpc_omp_task_complete_if0(spool__kmp_ident_t *loc, int32_t gtid,
                                                spool__kmp_task_t *task)
{
    (void)loc;
    kmp_head_t *h = head_of(task);
    /* The parts of an untied task that its first asked for. */
    while (h->again) {
        h->again = false;
        task->routine(gtid, task);
    }
    destruct(h, task, gtid);
    spool__omp_task_end_undeferred(h->node, h->saved, h->detached);
}

SPOOL_OMP_API int32_t __kmpc_omp_taskwait(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_taskwait();
    return 0;
}

SPOOL_OMP_API int32_t __kmpc_omp_taskyield(spool__kmp_ident_t *loc, int32_t gtid, int end_part)
{
    (void)loc;
    (void)gtid;
    (void)end_part;
    GOMP_taskyield();
    return 0;
}

/* ---- taskloop ------------------------------------------------------------------------------ */

/* A copy of the pattern task p (its block, shareds rebased) for the
 * iterations [lb, ub]; *plb and *pub are its bounds' places in p. */
static spool__kmp_task_t *loop_task(spool__kmp_task_t *p, const uint64_t *plb,
                                    const uint64_t *pub, uint64_t lb, uint64_t ub)
{
    kmp_head_t *h = head_of(p);
    spool__kmp_task_t *t = task_new(h->flags, h->task_size, h->shareds_size, p->routine);
    void *shareds = t->shareds;
    memcpy(t, p, h->task_size);
    if (h->shareds_size > 0)
        memcpy(shareds, p->shareds, h->shareds_size);
    t->shareds = shareds;
    *(uint64_t *)(void *)((char *)t + ((const char *)plb - (const char *)p)) = lb;
    *(uint64_t *)(void *)((char *)t + ((const char *)pub - (const char *)p)) = ub;
    return t;
}

SPOOL_OMP_API void __kmpc_taskloop(spool__kmp_ident_t *loc, int32_t gtid, spool__kmp_task_t *task,
                                   int if_val, uint64_t *lb, uint64_t *ub, int64_t st,
                                   int nogroup, int sched, uint64_t grainsize,
                                   void (*task_dup)(spool__kmp_task_t *, spool__kmp_task_t *,
                                                    int32_t))
{
    (void)loc;
    if (st == 0)
        spool__omp_fatal("__kmpc_taskloop: a loop with increment 0");
    uint64_t first = *lb, last = *ub;
    uint64_t trip = st > 0 ? ((int64_t)(last - first) < 0 ? 0 : (last - first) / (uint64_t)st + 1)
                           : ((int64_t)(first - last) < 0 ? 0 : (first - last) / (uint64_t)-st + 1);
    /* libomp's split: grainsize (1) or num_tasks (2) as asked, else ten
     * tasks per thread of the team; never more tasks than iterations. */
    uint64_t tasks;
    if (sched == 1)
        tasks = grainsize > 0 ? trip / grainsize : trip;
    else if (sched == 2)
        tasks = grainsize;
    else
        tasks = (uint64_t)omp_get_num_threads() * 10;
    if (tasks < 1)
        tasks = 1;
    if (tasks > trip)
        tasks = trip;
    if (!nogroup)
        GOMP_taskgroup_start();
    uint64_t small = trip > 0 ? trip / tasks : 0, extras = trip > 0 ? trip % tasks : 0;
    uint64_t at = first;
    for (uint64_t k = 0; k < tasks; k++) {
        uint64_t count = small + (k < extras ? 1 : 0);
        uint64_t end = at + (count - 1) * (uint64_t)st;
        spool__kmp_task_t *t = loop_task(task, lb, ub, at, end);
        if (task_dup != NULL)
            task_dup(t, task, k == tasks - 1);
        kmp_head_t *h = head_of(t);
        int priority;
        unsigned flags = gomp_flags(h, t, &priority);
        spool__omp_task_submit(h->node, run, if_val != 0, flags, NULL, priority);
        at = end + (uint64_t)st;
    }
    /* The pattern itself never runs: its privates' destructors do. */
    kmp_head_t *h = head_of(task);
    destruct(h, task, gtid);
    spool__omp_task_discard(h->node);
    if (!nogroup)
        GOMP_taskgroup_end();
}
