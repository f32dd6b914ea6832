/* Task reductions (omp.md, "Task reductions"): task_reduction on a
 * taskgroup, reduction on a taskloop, reduction(task, ...) on a parallel,
 * and in_reduction on the tasks that take part.  gcc initializes and
 * combines the private copies itself; the library gives each thread of the
 * team a chunk for them and maps an original item's address to the calling
 * thread's copy.
 *
 * gcc's array (one per construct, chained to the enclosing taskgroup's):
 *   d[0] count of items, d[1] a thread's chunk size, d[2] its alignment (the
 *   library replaces it with the chunks' address), d[3] the allocator (-1:
 *   malloc), d[4] the next array (the library links the enclosing
 *   taskgroup's there), d[5] and d[6] the library's (here: d[5] marks the
 *   last array of one registration, d[6] the chunks' end), then per item
 *   {address, offset in a chunk, the library's}. */
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "task.h"
#include "team.h"
#include "work.h"

/* The array gcc passed to GOMP_parallel_reductions, for the team the
 * calling thread starts next (spool__omp_reductions_team). */
static _Thread_local uintptr_t *pending __attribute__((tls_model("initial-exec")));

/* Gives each of nthreads threads a zeroed chunk for every array of the
 * chain data (up to the one whose next is 0), and links the enclosing
 * registrations (old) behind it. */
static void reduction_register(uintptr_t *data, uintptr_t *old, unsigned nthreads)
{
    for (uintptr_t *d = data;; d = (uintptr_t *)d[4]) {
        size_t align = d[2] < sizeof(void *) ? sizeof(void *) : (size_t)d[2];
        size_t size = (size_t)d[1] * nthreads;
        size = (size + align - 1) / align * align;
        void *chunks = aligned_alloc(align, size != 0 ? size : align);
        if (chunks == NULL)
            spool__omp_fatal("out of memory for a task reduction of %zu bytes", size);
        memset(chunks, 0, size);
        d[2] = (uintptr_t)chunks;
        d[6] = d[2] + (uintptr_t)d[1] * nthreads;
        d[5] = 0;
        if (d[4] == 0) {
            d[4] = (uintptr_t)old;
            d[5] = 1; /* the last array of this registration */
            return;
        }
    }
}

/* The registrations the calling task's in_reduction items are found in. */
static uintptr_t *reductions_of(spool__omp_tnode_t *n)
{
    spool__omp_tgroup_t *g = n->taskgroup != NULL ? n->taskgroup : n->group;
    return g != NULL ? g->reductions : NULL;
}

SPOOL_OMP_API void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup;
    if (g == NULL)
        spool__omp_fatal("GOMP_taskgroup_reduction_register: no taskgroup is open in this task");
    reduction_register(data, g->reductions, (unsigned)omp_get_num_threads());
    g->reductions = data;
}

SPOOL_OMP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    for (uintptr_t *d = data; d != NULL; d = (uintptr_t *)d[4]) {
        free((void *)d[2]);
        if (d[5] != 0)
            return;
    }
}

/* The item of the chain data whose original address is addr, else the one
 * whose chunks hold addr (a copy already mapped, maybe another thread's):
 * its array into *array, its offset into *off; false if none. */
static bool find_item(uintptr_t *data, uintptr_t addr, uintptr_t **array, uintptr_t *off)
{
    for (uintptr_t *d = data; d != NULL; d = (uintptr_t *)d[4])
        for (uintptr_t j = 0; j < d[0]; j++)
            if (d[7 + 3 * j] == addr) {
                *array = d;
                *off = d[8 + 3 * j];
                return true;
            }
    for (uintptr_t *d = data; d != NULL; d = (uintptr_t *)d[4])
        if (addr >= d[2] && addr < d[6] && d[1] != 0) {
            *array = d;
            *off = (addr - d[2]) % d[1];
            return true;
        }
    return false;
}

SPOOL_OMP_API void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    uintptr_t *data = reductions_of(spool__omp_task_current(thr));
    uintptr_t id = thr->ts.id; /* 0 outside any region */
    for (size_t i = 0; i < cnt; i++) {
        uintptr_t *d, off;
        if (!find_item(data, (uintptr_t)ptrs[i], &d, &off))
            spool__omp_fatal("GOMP_task_reduction_remap: %p is in no task_reduction or "
                             "reduction(task) of an enclosing construct",
                             ptrs[i]);
        ptrs[i] = (void *)(d[2] + id * d[1] + off);
        if (i < cntorig) {
            /* The original item's address, from its offset. */
            ptrs[cnt + i] = NULL;
            for (uintptr_t j = 0; j < d[0]; j++)
                if (d[8 + 3 * j] == off)
                    ptrs[cnt + i] = (void *)d[7 + 3 * j];
            if (ptrs[cnt + i] == NULL)
                spool__omp_fatal("GOMP_task_reduction_remap: no item at offset %lu",
                                 (unsigned long)off);
        }
    }
}

/* ---- reduction(task, ...) on a worksharing construct ------------------------------ */

static void ws_task_reductions(spool__omp_thread_t *thr, uintptr_t *reductions, bool first)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup;
    if (first) {
        GOMP_taskgroup_reduction_register(reductions);
        thr->ts.ws->task_reductions = reductions;
        return;
    }
    /* The first thread's chunks, array by array (the same construct, so
     * the same arrays); the ready construct published them. */
    uintptr_t *orig = thr->ts.ws->task_reductions;
    for (uintptr_t *d = reductions;; d = (uintptr_t *)d[4], orig = (uintptr_t *)orig[4]) {
        d[2] = orig[2];
        d[6] = orig[6];
        d[5] = 0;
        if (d[4] == 0) {
            d[4] = (uintptr_t)g->reductions;
            d[5] = 1;
            break;
        }
    }
    g->reductions = reductions;
}

bool spool__omp_ws_enter_reducing(spool__omp_thread_t *thr, uintptr_t *reductions)
{
    if (reductions == NULL)
        return spool__omp_ws_enter(thr);
    /* A taskgroup of the thread's own around the construct. */
    GOMP_taskgroup_start();
    spool__omp_task_current(thr)->taskgroup->workshare = true;
    bool first = spool__omp_ws_enter(thr);
    ws_task_reductions(thr, reductions, first);
    return first;
}

SPOOL_OMP_API void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tgroup_t *g = spool__omp_task_current(thr)->taskgroup;
    uintptr_t *data = g != NULL ? g->reductions : NULL;
    GOMP_taskgroup_end();
    /* Thread 0 frees the chunks every thread shared (gcc has combined
     * them); then the construct's barrier. */
    if (thr->ts.id == 0 && data != NULL)
        GOMP_taskgroup_reduction_unregister(data);
    if (!cancelled && thr->ts.team != NULL)
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

/* ---- reduction(task, ...) on a parallel ------------------------------------------- */

void spool__omp_reductions_team(spool__omp_team_t *team)
{
    uintptr_t *data = pending;
    if (data == NULL)
        return;
    pending = NULL;
    reduction_register(data, NULL, team->nthreads);
    /* One taskgroup for the region's implicit tasks: their tasks find the
     * items there. */
    spool__omp_tgroup_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        spool__omp_fatal("out of memory for a parallel's task reduction");
    g->reductions = data;
    team->tasking->reduction_group = g;
    for (unsigned i = 0; i < team->nthreads; i++)
        team->tasking->implicit[i].group = g;
}

SPOOL_OMP_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
                                                unsigned num_threads, unsigned flags)
{
    /* The first word of the region's block points at gcc's array. */
    pending = *(uintptr_t **)data;
    unsigned n = spool__omp_team_start(fn, data, num_threads, flags, NULL, NULL);
    spool__omp_team_t *team = spool__omp_thread()->ts.team;
    spool__omp_tgroup_t *g = team->tasking->reduction_group;
    team->tasking->reduction_group = NULL;
    fn(data);
    spool__omp_team_end();
    free(g);
    /* gcc combines the threads' copies, n of them. */
    return n;
}
