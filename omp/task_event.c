/* Detached tasks' events, the task queries, a wait for dependences in
 * place, the root tasks of target regions, and the start of the __kmpc_
 * door's undeferred tasks (omp.md, "Tasks"). */
#include <limits.h>

#include "env.h"
#include "gomp_abi.h"
#include "task.h"
#include "team.h"

SPOOL_OMP_API void GOMP_taskwait_depend(void **depend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current(thr);
    spool__omp_tnode_t n;
    spool__omp_node_init(&n, parent, thr->ts.team, &thr->task->icv);
    n.waited = true;
    if (spool__omp_deps_add(parent, &n, depend))
        spool__omp_task_wait_deps(thr, &n);
    if (n.dep != NULL)
        spool__omp_deps_done(&n, spool__omp_self_in(thr, n.team));
}

SPOOL_OMP_API void omp_fulfill_event(omp_event_handle_t event)
{
    spool__omp_tnode_t *n = (spool__omp_tnode_t *)(uintptr_t)event;
    if (n == NULL)
        spool__omp_fatal("omp_fulfill_event: not an event of a detached task");
    if (atomic_load_explicit(&n->detach, memory_order_relaxed) == 0)
        spool__omp_fatal("omp_fulfill_event: the event was fulfilled already");
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = n->team;
    unsigned self = spool__omp_self_in(thr, team);
    /* A thread outside n's team touches the team after its last write
     * (its wakes): the team's memory stays while it does (team.c). */
    bool foreign = self == UINT_MAX && team != NULL;
    if (foreign)
        spool__omp_foreign_enter();
    if (!n->deferred) {
        /* An undeferred task's maker waits for the count to reach 0 (and
         * may free n at once).  Seq-cst (a release): pairs with its loads
         * (W1, with the wake, which touches only the team). */
        atomic_fetch_sub_explicit(&n->detach, 1, memory_order_seq_cst);
        spool__omp_task_wake(team, self, n);
    } else if (atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) == 1) {
        /* Acq_rel: as in spool__omp_task_run. */
        spool__omp_task_complete(n, self);
    }
    if (foreign)
        spool__omp_foreign_leave();
}

SPOOL_OMP_API int omp_in_final(void)
{
    return spool__omp_task_current_any(spool__omp_thread())->final;
}

void spool__omp_task_root_init(spool__omp_tnode_t *node, const spool__omp_icv_t *icv)
{
    spool__omp_node_init(node, NULL, NULL, icv);
    node->root = true;
}

static bool only_own_ref(const void *arg)
{
    /* Seq-cst (W1): pairs with the children's seq-cst drops (node_drop),
     * whose work it acquires. */
    return (atomic_load_explicit(&((spool__omp_tnode_t *)arg)->count, memory_order_seq_cst) &
            SPOOL_OMP_REFS_MASK) == 1;
}

void spool__omp_task_root_end(spool__omp_tnode_t *node)
{
    /* Its tasks complete, and their nodes freed (they point at it): a
     * target region's tasks run outside any team. */
    spool__omp_wait_outside(node, only_own_ref, node);
    if (node->deps != NULL)
        spool__omp_deps_free(node->deps);
}

void spool__omp_task_begin_undeferred(spool__omp_tnode_t *n, bool final, bool detached,
                                      spool__omp_task_t **saved)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current(thr);
    unsigned char size_class = n->size_class;
    void *data = n->data;
    spool__omp_node_init(n, parent, thr->ts.team, &thr->task->icv);
    n->size_class = size_class;
    n->data = data;
    n->final = final || parent->final;
    n->group = parent->taskgroup != NULL ? parent->taskgroup : parent->group;
    if (detached)
        atomic_init(&n->detach, 2); /* the body's end and the event */
    *saved = thr->task;
    thr->task = &n->base;
}
