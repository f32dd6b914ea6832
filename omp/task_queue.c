/* A team's task queues and the waits that run queued tasks (omp.md,
 * "Tasks"): taskwait, taskgroup's end, taskyield, a barrier's waiters
 * (spool__omp_task_help) and the region's end. */
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "lock.h"
#include "task.h"
#include "task_help.h"
#include "team.h"
#include "wait.h"

/* ---- a team's tasks ------------------------------------------------------------- */

spool__omp_tasking_t *spool__omp_tasking_new(unsigned capacity)
{
    spool__omp_tasking_t *tk = aligned_alloc(SPOOL_OMP_LINE, sizeof *tk);
    spool__omp_tqueue_t *q =
        aligned_alloc(SPOOL_OMP_LINE, (size_t)capacity * sizeof(spool__omp_tqueue_t));
    spool__omp_tnode_t *im = calloc(capacity, sizeof(spool__omp_tnode_t));
    if (tk == NULL || q == NULL || im == NULL)
        spool__omp_fatal("out of memory for a team of %u threads", capacity);
    memset(tk, 0, sizeof *tk);
    memset(q, 0, (size_t)capacity * sizeof *q);
    tk->queues = q;
    tk->implicit = im;
    tk->capacity = capacity;
    return tk;
}

void spool__omp_tasking_free(spool__omp_tasking_t *tk)
{
    free(tk->queues);
    free(tk->implicit);
    free(tk);
}

void spool__omp_tasking_start(spool__omp_team_t *team)
{
    spool__omp_tasking_t *tk = team->tasking;
    atomic_store_explicit(&tk->ended, 0, memory_order_relaxed);
    for (unsigned i = 0; i < team->nthreads; i++) {
        spool__omp_node_init(&tk->implicit[i], NULL, team, &team->members[i].task.icv);
        tk->implicit[i].root = true;
    }
}

/* ---- queues --------------------------------------------------------------------- */

void spool__omp_task_push(spool__omp_team_t *team, unsigned id, spool__omp_tnode_t *n)
{
    spool__omp_tqueue_t *q = &team->tasking->queues[id];
    spool__omp_lock_word(&q->lock);
    if (n->urgent && q->head != NULL) {
        /* In front: where thieves take first, and its owner too (take). */
        n->prev = NULL;
        n->next = q->head;
        q->head->prev = n;
        q->head = n;
    } else {
        n->next = NULL;
        n->prev = q->tail;
        if (q->tail != NULL)
            q->tail->next = n;
        else
            q->head = n;
        q->tail = n;
    }
    atomic_store_explicit(&q->len, atomic_load_explicit(&q->len, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    /* Under the lock: the wake reads n's ancestry, and once the lock drops
     * a thief may take, run and free n. */
    spool__omp_barrier_task_wake(team, id, n);
    spool__omp_unlock_word(&q->lock);
}

static void unlink_node(spool__omp_tqueue_t *q, spool__omp_tnode_t *n)
{
    if (n->prev != NULL)
        n->prev->next = n->next;
    else
        q->head = n->next;
    if (n->next != NULL)
        n->next->prev = n->prev;
    else
        q->tail = n->prev;
    atomic_store_explicit(&q->len, atomic_load_explicit(&q->len, memory_order_relaxed) - 1,
                          memory_order_relaxed);
}

/* True if n descends from anc (NULL: any task will do). */
static bool descends(const spool__omp_tnode_t *n, const void *anc)
{
    if (anc == NULL)
        return true;
    for (const spool__omp_tnode_t *p = n->parent; p != NULL; p = p->parent)
        if (p == anc)
            return true;
    return false;
}

bool spool__omp_task_may_run(const void *task, const void *anc)
{
    return descends(task, anc);
}

/* The task take() would choose in queue q for thread id (k == 0: its own
 * queue), under q's lock. */
static spool__omp_tnode_t *candidate(spool__omp_tqueue_t *q, unsigned k)
{
    return k == 0 && (q->head == NULL || !q->head->urgent) ? q->tail : q->head;
}

/* The task thread id of team would take, descending from anc (NULL: any):
 * its own newest, else another thread's oldest; unlinked if take, only
 * looked at otherwise.  NULL if none. */
static spool__omp_tnode_t *find(spool__omp_team_t *team, unsigned id, const void *anc, bool take)
{
    spool__omp_tasking_t *tk = team->tasking;
    unsigned n = team->nthreads;
    for (unsigned k = 0; k < n; k++) {
        unsigned v = id + k < n ? id + k : id + k - n;
        spool__omp_tqueue_t *q = &tk->queues[v];
        /* Relaxed: a hint; the queue's lock orders what is read under it
         * (and spool__omp_park's fence, for spool__omp_task_queued). */
        if (atomic_load_explicit(&q->len, memory_order_relaxed) == 0)
            continue;
        spool__omp_lock_word(&q->lock);
        spool__omp_tnode_t *t = candidate(q, k);
        if (t == NULL || !descends(t, anc))
            t = NULL;
        else if (take)
            unlink_node(q, t);
        spool__omp_unlock_word(&q->lock);
        if (t != NULL)
            return t;
    }
    return NULL;
}

spool__omp_tnode_t *spool__omp_task_take(spool__omp_team_t *team, unsigned id,
                                         const spool__omp_tnode_t *anc)
{
    return find(team, id, anc, true);
}

bool spool__omp_task_queued(spool__omp_team_t *team, unsigned id, const void *anc)
{
    if (anc == NULL) {
        /* Any task will do: the queues' lengths say (relaxed, after the
         * caller's fence). */
        for (unsigned i = 0; i < team->nthreads; i++)
            if (atomic_load_explicit(&team->tasking->queues[i].len, memory_order_relaxed) != 0)
                return true;
        return false;
    }
    return find(team, id, anc, false) != NULL;
}

void spool__omp_task_ready(spool__omp_tnode_t *n)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    unsigned id = thr->ts.team == n->team ? thr->ts.id : 0;
    spool__omp_task_push(n->team, id, n);
}

/* ---- waits ------------------------------------------------------------------------- */

bool spool__omp_task_help(spool__omp_team_t *team, unsigned id)
{
    if (spool__omp_barrier_tasks(team) == 0)
        return false;
    spool__omp_tnode_t *n = spool__omp_task_take(team, id, NULL);
    if (n == NULL)
        return false;
    spool__omp_task_run(spool__omp_thread(), n, id);
    return true;
}

/* A wait of the current task cur of thr until ready(arg), registered on
 * obj: it runs cur's queued descendants (T4), spins, then parks (omp.md,
 * "Waits"); a thread in no team has no queues and parks outside. */
static void task_wait(spool__omp_thread_t *thr, spool__omp_tnode_t *cur, const void *obj,
                      spool__omp_ready_fn ready, const void *arg)
{
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL) {
        spool__omp_wait_outside(obj, ready, arg);
        return;
    }
    unsigned id = thr->ts.id;
    unsigned long spin = spool__omp_spin_count(team->nthreads);
    for (unsigned long i = 0; !ready(arg); i++) {
        spool__omp_tnode_t *n = spool__omp_task_take(team, id, cur);
        if (n != NULL) {
            spool__omp_task_run(thr, n, id);
            i = 0;
        } else if (i < spin) {
            spool__spin_round(i);
        } else {
            spool__omp_park(team, id, obj, true, cur, ready, arg);
        }
    }
}

/* The ready conditions (seq-cst loads: spool__omp_park's pair W1; each an
 * acquire of the completions' work). */
static bool count_zero(const void *arg)
{
    return atomic_load_explicit((_Atomic unsigned long *)arg, memory_order_seq_cst) == 0;
}

static bool no_children(const void *arg)
{
    const spool__omp_tnode_t *n = arg;
    return atomic_load_explicit(&((spool__omp_tnode_t *)n)->count, memory_order_seq_cst) <
           SPOOL_OMP_CHILD_ONE;
}

static bool deps_met(const void *arg)
{
    return spool__omp_deps_pending(arg) == 0;
}

void spool__omp_task_wait_count(spool__omp_thread_t *thr, _Atomic unsigned long *count)
{
    task_wait(thr, spool__omp_task_current(thr), count, count_zero, count);
}

void spool__omp_task_wait_children(spool__omp_thread_t *thr, spool__omp_tnode_t *node)
{
    task_wait(thr, spool__omp_task_current(thr), node, no_children, node);
}

void spool__omp_task_wait_deps(spool__omp_thread_t *thr, spool__omp_tnode_t *node)
{
    task_wait(thr, spool__omp_task_current(thr), node, deps_met, node);
}

SPOOL_OMP_API void GOMP_taskwait(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *cur = spool__omp_task_current_any(thr);
    /* A stub with no node has had no deferred child. */
    if (!cur->lazy)
        spool__omp_task_wait_children(thr, cur);
}

SPOOL_OMP_API void GOMP_taskyield(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL || spool__omp_barrier_tasks(team) == 0)
        return;
    spool__omp_tnode_t *cur = spool__omp_task_current_any(thr);
    if (cur->lazy)
        return; /* a stub with no node: no descendant to run */
    spool__omp_tnode_t *n = spool__omp_task_take(team, thr->ts.id, cur);
    if (n != NULL)
        spool__omp_task_run(thr, n, thr->ts.id);
}

typedef struct region_end {
    spool__omp_team_t *team;
    spool__omp_tasking_t *tk;
} region_end_t;

static bool region_done(const void *arg)
{
    const region_end_t *r = arg;
    /* Seq-cst loads (W1); acquire pairs with every thread's increment of
     * ended (their implicit tasks' work is seen) and the completions. */
    return atomic_load_explicit(&r->tk->ended, memory_order_seq_cst) == r->team->nthreads &&
           (atomic_load_explicit(&r->team->bar.state, memory_order_seq_cst) >> 32) == 0;
}

void spool__omp_task_region_end(spool__omp_thread_t *thr)
{
    spool__omp_team_t *team = thr->ts.team;
    spool__omp_tasking_t *tk = team->tasking;
    unsigned id = thr->ts.id;
    /* Seq-cst: the write the waiters below wait for (W1, with the wake). */
    unsigned ended = atomic_fetch_add_explicit(&tk->ended, 1, memory_order_seq_cst) + 1;
    if (ended == team->nthreads)
        spool__omp_wake(team, id, &team->bar.state);
    /* Every thread stays until every thread's implicit task has returned
     * and no task is left, running tasks meanwhile, as at libgomp's
     * barrier: a task made late may need it (omp.md, "Tasks", T3).  The
     * wait is on the barrier's state, whose last task's drop wakes it
     * (barrier.c), as the last thread to end does (above). */
    region_end_t r = {team, tk};
    unsigned long spin = spool__omp_spin_count(team->nthreads);
    for (unsigned long i = 0; !region_done(&r); i++) {
        if (spool__omp_task_help(team, id))
            i = 0;
        else if (i < spin)
            spool__spin_round(i);
        else
            spool__omp_park(team, id, &team->bar.state, true, NULL, region_done, &r);
    }
}
