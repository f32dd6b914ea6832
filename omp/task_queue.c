/* A team's task queues and the waits that run queued tasks (omp.md,
 * "Tasks"): taskwait, taskgroup's end, taskyield, a barrier's waiters
 * (spool__omp_task_help) and the region's end. */
#include <stdlib.h>
#include <string.h>

#include "gomp_abi.h"
#include "task.h"

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
    atomic_store_explicit(&tk->used, false, memory_order_relaxed);
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
    spool__omp_unlock_word(&q->lock);
    spool__omp_barrier_task_wake(team, id);
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
static bool descends(const spool__omp_tnode_t *n, const spool__omp_tnode_t *anc)
{
    if (anc == NULL)
        return true;
    for (const spool__omp_tnode_t *p = n->parent; p != NULL; p = p->parent)
        if (p == anc)
            return true;
    return false;
}

spool__omp_tnode_t *spool__omp_task_take(spool__omp_team_t *team, unsigned id,
                                         const spool__omp_tnode_t *anc)
{
    spool__omp_tasking_t *tk = team->tasking;
    unsigned n = team->nthreads;
    for (unsigned k = 0; k < n; k++) {
        unsigned v = id + k < n ? id + k : id + k - n;
        spool__omp_tqueue_t *q = &tk->queues[v];
        if (atomic_load_explicit(&q->len, memory_order_relaxed) == 0)
            continue;
        spool__omp_lock_word(&q->lock);
        spool__omp_tnode_t *t = k == 0 && (q->head == NULL || !q->head->urgent) ? q->tail : q->head;
        if (t != NULL && descends(t, anc))
            unlink_node(q, t);
        else
            t = NULL;
        spool__omp_unlock_word(&q->lock);
        if (t != NULL)
            return t;
    }
    return NULL;
}

bool spool__omp_task_queued(spool__omp_team_t *team)
{
    spool__omp_tasking_t *tk = team->tasking;
    for (unsigned i = 0; i < team->nthreads; i++)
        if (atomic_load_explicit(&tk->queues[i].len, memory_order_relaxed) != 0)
            return true;
    return false;
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

bool spool__omp_task_wait_round(spool__omp_thread_t *thr, spool__omp_tnode_t *cur,
                                unsigned long i)
{
    spool__omp_team_t *team = thr->ts.team;
    spool__omp_tnode_t *n = team != NULL ? spool__omp_task_take(team, thr->ts.id, cur) : NULL;
    if (n != NULL) {
        spool__omp_task_run(thr, n, thr->ts.id);
        return true;
    }
    spool__omp_spin(i);
    return false;
}

void spool__omp_task_wait_count(spool__omp_thread_t *thr, _Atomic unsigned long *count)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    /* Acquire: pairs with the release decrements of a completion. */
    for (unsigned long i = 0; atomic_load_explicit(count, memory_order_acquire) != 0; i++)
        if (spool__omp_task_wait_round(thr, cur, i))
            i = 0;
}

void spool__omp_task_wait_children(spool__omp_thread_t *thr, spool__omp_tnode_t *node)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    /* Acquire: pairs with the acq_rel decrements of a completion. */
    for (unsigned long i = 0;
         atomic_load_explicit(&node->count, memory_order_acquire) >= SPOOL_OMP_CHILD_ONE; i++)
        if (spool__omp_task_wait_round(thr, cur, i))
            i = 0;
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

void spool__omp_task_region_end(spool__omp_thread_t *thr)
{
    spool__omp_team_t *team = thr->ts.team;
    spool__omp_tasking_t *tk = team->tasking;
    unsigned id = thr->ts.id;
    /* Acq_rel: a count the helpers below read with acquire. */
    atomic_fetch_add_explicit(&tk->ended, 1, memory_order_acq_rel);
    if (!atomic_load_explicit(&tk->used, memory_order_relaxed) &&
        spool__omp_barrier_tasks(team) == 0)
        return;
    /* A thread that made tasks stays until every thread's implicit task
     * has returned and no task is left; one that made none and saw none
     * may leave (omp.md, "Tasks", T3). */
    for (unsigned long i = 0;; i++) {
        if (spool__omp_task_help(team, id)) {
            i = 0;
            continue;
        }
        /* Acquire: pairs with every thread's acq_rel increment of ended
         * (their implicit tasks' work is seen). */
        if (atomic_load_explicit(&tk->ended, memory_order_acquire) == team->nthreads &&
            spool__omp_barrier_tasks(team) == 0)
            break;
        spool__omp_spin(i);
    }
}
