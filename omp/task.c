/* Explicit tasks (omp.md, "Tasks"): making, queueing, running and
 * completing them, and the waits that run them (taskwait, taskyield, a
 * barrier's waiters, the region's end). */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gomp_abi.h"
#include "task.h"

/* A thread defers a task only while its queue is shorter than this: past
 * it, the task runs at once (as an included task), so that a task tree
 * costs a call a task where the team is busy. */
#ifndef QUEUE_CUTOFF
#define QUEUE_CUTOFF 64
#endif

/* ---- nodes ------------------------------------------------------------------ */

/* Freed nodes of the small class, kept per thread for the next tasks. */
#define NODE_SMALL 256
#define CACHE_MAX 64
typedef struct node_cache {
    spool__omp_tnode_t *free;
    unsigned count;
    bool keyed;
} node_cache_t;
static _Thread_local node_cache_t cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void cache_drop(void *arg)
{
    node_cache_t *c = arg;
    while (c->free != NULL) {
        spool__omp_tnode_t *n = c->free;
        c->free = n->next;
        free(n);
    }
    c->count = 0;
}

static void make_cache_key(void)
{
    if (pthread_key_create(&cache_key, cache_drop) != 0)
        spool__omp_fatal("cannot create a thread-specific key");
}

static spool__omp_tnode_t *node_alloc(size_t bytes)
{
    spool__omp_tnode_t *n;
    if (bytes <= NODE_SMALL && cache.free != NULL) {
        n = cache.free;
        cache.free = n->next;
        cache.count--;
        return n;
    }
    n = malloc(bytes <= NODE_SMALL ? NODE_SMALL : bytes);
    if (n == NULL)
        spool__omp_fatal("out of memory for a task of %zu bytes", bytes);
    n->size_class = bytes <= NODE_SMALL;
    return n;
}

static void node_free(spool__omp_tnode_t *n)
{
    if (n->deps != NULL)
        spool__omp_deps_free(n->deps);
    if (n->size_class == 1 && cache.count < CACHE_MAX) {
        if (!cache.keyed) {
            pthread_once(&cache_key_once, make_cache_key);
            pthread_setspecific(cache_key, &cache);
            cache.keyed = true;
        }
        n->next = cache.free;
        cache.free = n;
        cache.count++;
        return;
    }
    free(n);
}

/* Drops one of node's refs; a node freed drops the one it held of its
 * parent. */
static void node_unref(spool__omp_tnode_t *n)
{
    while (n != NULL) {
        /* Acq_rel: the last drop sees every other holder's writes before
         * it frees the node. */
        if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) != 1)
            return;
        spool__omp_tnode_t *p = n->holds_parent ? n->parent : NULL;
        node_free(n);
        n = p;
    }
}

static void node_init(spool__omp_tnode_t *n, spool__omp_tnode_t *parent, spool__omp_team_t *team,
                      const spool__omp_icv_t *icv)
{
    n->base.icv = *icv;
    n->parent = parent;
    n->team = team;
    n->group = NULL;
    n->taskgroup = NULL;
    atomic_init(&n->refs, 1);
    atomic_init(&n->children, 0);
    atomic_init(&n->detach, 0);
    n->next = n->prev = NULL;
    n->deps = NULL;
    n->dep = NULL;
    n->final = false;
    n->deferred = false;
    n->holds_parent = false;
    n->waited = false;
}

/* ---- the current task --------------------------------------------------------- */

static _Thread_local spool__omp_tnode_t initial_node;
static _Thread_local bool initial_ready;

spool__omp_tnode_t *spool__omp_task_current(spool__omp_thread_t *thr)
{
    spool__omp_team_t *team = thr->ts.team;
    if (team != NULL && thr->task == &team->members[thr->ts.id].task)
        return &team->tasking->implicit[thr->ts.id];
    if (thr->task == &thr->initial) {
        if (!initial_ready) {
            node_init(&initial_node, NULL, NULL, &thr->initial.icv);
            initial_ready = true;
        }
        return &initial_node;
    }
    /* An explicit task's node, or a root's (a target region's). */
    return (spool__omp_tnode_t *)(void *)thr->task;
}

void spool__omp_task_root_init(spool__omp_tnode_t *node, const spool__omp_icv_t *icv)
{
    node_init(node, NULL, NULL, icv);
}

void spool__omp_task_root_end(spool__omp_tnode_t *node)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_task_wait_count(thr, &node->children);
    if (node->deps != NULL)
        spool__omp_deps_free(node->deps);
}

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
    for (unsigned i = 0; i < team->nthreads; i++)
        node_init(&tk->implicit[i], NULL, team, &team->members[i].task.icv);
}

/* ---- queues --------------------------------------------------------------------- */

static void push(spool__omp_team_t *team, unsigned id, spool__omp_tnode_t *n)
{
    spool__omp_tqueue_t *q = &team->tasking->queues[id];
    spool__omp_lock_word(&q->lock);
    n->next = NULL;
    n->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = n;
    else
        q->head = n;
    q->tail = n;
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

/* A queued task of team for thread id, descending from anc: its own
 * newest, else another thread's oldest. */
static spool__omp_tnode_t *take(spool__omp_team_t *team, unsigned id,
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
        spool__omp_tnode_t *t = k == 0 ? q->tail : q->head;
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
    push(n->team, id, n);
}

/* ---- running and completing ------------------------------------------------------- */

static bool skipped(const spool__omp_tnode_t *n)
{
    if (!spool__omp_env.cancellation)
        return false;
    /* A task of a cancelled taskgroup, or descending from one.  Acquire:
     * pairs with the canceller's release (GOMP_cancel). */
    for (const spool__omp_tnode_t *t = n; t != NULL; t = t->parent)
        if (t->group != NULL && atomic_load_explicit(&t->group->cancelled, memory_order_acquire))
            return true;
    return n->team != NULL && atomic_load_explicit(&n->team->bar.cancelled, memory_order_acquire);
}

/* A deferred task is complete: its successors, taskgroup, parent and team
 * learn it, the team last (its barrier may end the region's use of the
 * team). */
static void complete(spool__omp_tnode_t *n, unsigned self)
{
    if (n->dep != NULL)
        spool__omp_deps_done(n);
    spool__omp_team_t *team = n->team;
    bool deferred = n->deferred;
    /* Release: pairs with the acquire loads of the waits for these
     * counts (taskgroup end, taskwait): the task's work is seen there. */
    if (deferred && n->group != NULL)
        atomic_fetch_sub_explicit(&n->group->count, 1, memory_order_release);
    if (deferred)
        atomic_fetch_sub_explicit(&n->parent->children, 1, memory_order_release);
    node_unref(n);
    if (deferred && team != NULL)
        spool__omp_barrier_task_done(team, self);
}

/* Runs n's body on the calling thread as its current task. */
static void run_body(spool__omp_thread_t *thr, spool__omp_tnode_t *n)
{
    spool__omp_task_t *saved = thr->task;
    thr->task = &n->base;
    if (!skipped(n))
        n->fn(n->data);
    thr->task = saved;
}

/* The body is done: the task is complete, unless it waits for its event. */
static void body_done(spool__omp_tnode_t *n, unsigned self)
{
    /* Acq_rel: of the body's end and the fulfilment, the later sees the
     * earlier's writes and completes the task. */
    if (atomic_load_explicit(&n->detach, memory_order_relaxed) != 0 &&
        atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) != 1)
        return;
    complete(n, self);
}

bool spool__omp_task_help(spool__omp_team_t *team, unsigned id)
{
    spool__omp_tasking_t *tk = team->tasking;
    if (tk == NULL || spool__omp_barrier_tasks(team) == 0)
        return false;
    spool__omp_tnode_t *n = take(team, id, NULL);
    if (n == NULL)
        return false;
    run_body(spool__omp_thread(), n);
    body_done(n, id);
    return true;
}

/* ---- waits ------------------------------------------------------------------------- */

void spool__omp_task_wait_count(spool__omp_thread_t *thr, _Atomic unsigned long *count)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_team_t *team = thr->ts.team;
    unsigned id = thr->ts.id;
    /* Acquire: pairs with the release decrements in complete(). */
    for (unsigned long i = 0; atomic_load_explicit(count, memory_order_acquire) != 0; i++) {
        spool__omp_tnode_t *n = team != NULL ? take(team, id, cur) : NULL;
        if (n != NULL) {
            run_body(thr, n);
            body_done(n, id);
            i = 0;
        } else {
            spool__omp_spin(i);
        }
    }
}

/* Waits, running the current task's descendants, until n's predecessors
 * are complete (n waits in place: an undeferred task, taskwait depend). */
static void wait_deps(spool__omp_thread_t *thr, spool__omp_tnode_t *n)
{
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_team_t *team = thr->ts.team;
    for (unsigned long i = 0; spool__omp_deps_pending(n) != 0; i++) {
        spool__omp_tnode_t *t = team != NULL ? take(team, thr->ts.id, cur) : NULL;
        if (t != NULL) {
            run_body(thr, t);
            body_done(t, thr->ts.id);
            i = 0;
        } else {
            spool__omp_spin(i);
        }
    }
}

SPOOL_OMP_API void GOMP_taskwait_depend(void **depend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current(thr);
    spool__omp_tnode_t n;
    node_init(&n, parent, thr->ts.team, &thr->task->icv);
    n.waited = true;
    if (spool__omp_deps_add(parent, &n, depend))
        wait_deps(thr, &n);
    if (n.dep != NULL)
        spool__omp_deps_done(&n);
}

SPOOL_OMP_API void GOMP_taskwait(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_task_wait_count(thr, &spool__omp_task_current(thr)->children);
}

SPOOL_OMP_API void GOMP_taskyield(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL || spool__omp_barrier_tasks(team) == 0)
        return;
    spool__omp_tnode_t *n = take(team, thr->ts.id, spool__omp_task_current(thr));
    if (n != NULL) {
        run_body(thr, n);
        body_done(n, thr->ts.id);
    }
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
     * may leave (each maker drains its own: omp.md, "Tasks", T3). */
    for (unsigned long i = 0;; i++) {
        if (spool__omp_task_help(team, id)) {
            i = 0;
            continue;
        }
        if (atomic_load_explicit(&tk->ended, memory_order_acquire) == team->nthreads &&
            spool__omp_barrier_tasks(team) == 0)
            break;
        spool__omp_spin(i);
    }
}

/* ---- making tasks -------------------------------------------------------------------- */

void spool__omp_task_make(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long size, long align, bool if_clause, unsigned flags, void **depend,
                          void *detach, void (*first)(void *copy, void *arg), void *first_arg)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current(thr);
    spool__omp_team_t *team = thr->ts.team;
    unsigned id = thr->ts.id;
    bool final = parent->final || (flags & SPOOL_OMP_TASK_FINAL);
    bool deps = (flags & SPOOL_OMP_TASK_DEPEND) && depend != NULL;
    bool detached = (flags & SPOOL_OMP_TASK_DETACH) && detach != NULL;
    /* Deferred only where another thread of the team could run it (or it
     * must wait: for its event, or for siblings). */
    bool defer = team != NULL && if_clause && !final &&
                 (detached || deps ||
                  (team->nthreads > 1 &&
                   atomic_load_explicit(&team->tasking->queues[id].len, memory_order_relaxed) <
                       QUEUE_CUTOFF));
    if (align < 1)
        align = 1;
    size_t bytes = sizeof(spool__omp_tnode_t) + (size_t)size + (size_t)align - 1;
    bool copy = defer || cpyfn != NULL || first != NULL;
    spool__omp_tnode_t *n = node_alloc(copy ? bytes : sizeof(spool__omp_tnode_t));
    unsigned size_class = n->size_class;
    node_init(n, parent, team, &thr->task->icv);
    n->size_class = size_class;
    n->final = final;
    /* Its taskgroup: where it counts if deferred, where it is cancelled
     * from, and where its own children count. */
    n->group = parent->taskgroup != NULL ? parent->taskgroup : parent->group;
    n->fn = fn;
    n->data = data;
    if (copy) {
        uintptr_t at = ((uintptr_t)(n + 1) + (uintptr_t)align - 1) & ~((uintptr_t)align - 1);
        n->data = (void *)at;
        if (cpyfn != NULL)
            cpyfn(n->data, data);
        else if (size > 0)
            memcpy(n->data, data, (size_t)size);
        if (first != NULL)
            first(n->data, first_arg);
    }
    if (detached) {
        atomic_init(&n->detach, 2);
        *(omp_event_handle_t *)detach = (omp_event_handle_t)(uintptr_t)n;
    }
    if (!defer) {
        /* At once, on this thread: undeferred, included, or past the
         * cutoff (no sibling can depend on it then: its siblings before
         * it are complete or it waits for them below). */
        if (deps) {
            n->waited = true;
            if (spool__omp_deps_add(parent, n, depend))
                wait_deps(thr, n);
        }
        run_body(thr, n);
        if (detached) {
            /* Undeferred and detached: the encountering task waits for the
             * event (the node stays while it waits). */
            atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
            if (atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) != 1)
                for (unsigned long i = 0; atomic_load_explicit(&n->detach, memory_order_acquire) != 0; i++)
                    spool__omp_spin(i);
            atomic_fetch_sub_explicit(&n->refs, 1, memory_order_relaxed);
        }
        if (n->dep != NULL)
            spool__omp_deps_done(n);
        /* Acquire: pairs with the children's drops in node_unref.  With
         * no child node left none can come (its body is over): it is
         * freed without an RMW. */
        if (atomic_load_explicit(&n->refs, memory_order_acquire) == 1) {
            node_free(n);
            return;
        }
        /* Children still hold it: it holds its parent until freed. */
        n->holds_parent = true;
        atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
        node_unref(n);
        return;
    }
    n->deferred = true;
    n->holds_parent = true;
    /* Relaxed: the parent is running here, and holds its own counts. */
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&parent->children, 1, memory_order_relaxed);
    if (n->group != NULL)
        atomic_fetch_add_explicit(&n->group->count, 1, memory_order_relaxed);
    spool__omp_barrier_task_add(team);
    if (!atomic_load_explicit(&team->tasking->used, memory_order_relaxed))
        atomic_store_explicit(&team->tasking->used, true, memory_order_relaxed);
    if (deps && spool__omp_deps_add(parent, n, depend))
        return; /* queued when its last predecessor completes */
    push(team, id, n);
}

SPOOL_OMP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                             long size, long align, bool if_clause, unsigned flags, void **depend,
                             int priority, void *detach)
{
    (void)priority; /* a hint: see omp.md, "Tasks" */
    spool__omp_task_make(fn, data, cpyfn, size, align, if_clause, flags, depend, detach, NULL,
                         NULL);
}

SPOOL_OMP_API void omp_fulfill_event(omp_event_handle_t event)
{
    spool__omp_tnode_t *n = (spool__omp_tnode_t *)(uintptr_t)event;
    if (n == NULL)
        spool__omp_fatal("omp_fulfill_event: not an event of a detached task");
    unsigned d = atomic_load_explicit(&n->detach, memory_order_relaxed);
    if (d == 0)
        spool__omp_fatal("omp_fulfill_event: the event was fulfilled already");
    if (!n->deferred) {
        /* An undeferred task's maker waits for the count to reach 0. */
        atomic_fetch_sub_explicit(&n->detach, 1, memory_order_release);
        return;
    }
    spool__omp_thread_t *thr = spool__omp_thread();
    unsigned self = thr->ts.team == n->team ? thr->ts.id : UINT_MAX;
    /* Acq_rel: as in body_done. */
    if (atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) == 1)
        complete(n, self);
}

SPOOL_OMP_API int omp_in_final(void)
{
    return spool__omp_task_current(spool__omp_thread())->final;
}
