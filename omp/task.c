/* Explicit tasks (omp.md, "Tasks"): their nodes, making, running and
 * completing them (task_queue.c has the queues and the waits). */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "task.h"
#include "team.h"
#include "wait.h"

/* A thread defers a task only while its queue is shorter than this: past
 * it, the task runs at once (as an included task), so that a task tree
 * costs a call a task where the team is busy.  Threads of the team that
 * sleep with nothing to do (at a barrier or the region's end) add one each,
 * so that long tasks made by one thread reach them all (each push wakes
 * one of them). */
#ifndef QUEUE_CUTOFF
#define QUEUE_CUTOFF 4
#endif

/* Whether thread id of team has room to defer a task it makes. */
static inline bool defer_room(spool__omp_team_t *team, unsigned id)
{
    /* Relaxed: hints; a task deferred or run at once is right either way. */
    unsigned long len = atomic_load_explicit(&team->tasking->queues[id].len, memory_order_relaxed);
    if (len < QUEUE_CUTOFF)
        return true;
    unsigned idle = atomic_load_explicit(&team->bar.idle, memory_order_relaxed);
    return len < QUEUE_CUTOFF + (idle < QUEUE_CUTOFF ? idle : QUEUE_CUTOFF);
}

/* ---- nodes ------------------------------------------------------------------ */

_Thread_local spool__omp_node_cache_t spool__omp_node_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void cache_drop(void *arg)
{
    spool__omp_node_cache_t *c = arg;
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

spool__omp_tnode_t *spool__omp_node_alloc_slow(size_t bytes)
{
    bool small = bytes <= SPOOL_OMP_NODE_SMALL;
    spool__omp_tnode_t *n = malloc(small ? SPOOL_OMP_NODE_SMALL : bytes);
    if (n == NULL)
        spool__omp_fatal("out of memory for a task of %zu bytes", bytes);
    n->size_class = small;
    return n;
}

void spool__omp_node_free_slow(spool__omp_tnode_t *n)
{
    spool__omp_node_cache_t *c = &spool__omp_node_cache;
    if (n->deps != NULL) {
        spool__omp_deps_free(n->deps);
        n->deps = NULL;
    }
    if (n->size_class == 1 && c->count < SPOOL_OMP_NODE_CACHE_MAX) {
        if (!c->keyed) {
            /* The thread's exit frees its cache. */
            pthread_once(&cache_key_once, make_cache_key);
            pthread_setspecific(cache_key, c);
            c->keyed = true;
        }
        n->next = c->free;
        c->free = n;
        c->count++;
        return;
    }
    free(n);
}

/* A task's parent gains a child node: its refs, and a deferred child's
 * count too; a root's first held ref counts it in its team's barrier
 * (a team's implicit task with descendants alive). */
static void node_hold(spool__omp_tnode_t *p, unsigned long long delta)
{
    /* Relaxed: the holder is made by a task of p's, which p's refs hold
     * (or p itself); the drops publish. */
    unsigned long long old = atomic_fetch_add_explicit(&p->count, delta, memory_order_relaxed);
    if (p->root && p->team != NULL && (old & SPOOL_OMP_REFS_MASK) == 1)
        spool__omp_barrier_task_add(p->team);
}

/* Drops delta (refs and deferred children) from n; a node whose refs reach
 * 0 is freed and drops the ref it held of its parent; a root whose last
 * child node goes leaves its team's barrier count, the last touch of the
 * team (self: the caller's thread in the team, or UINT_MAX). */
static void node_drop(spool__omp_tnode_t *n, unsigned long long delta, unsigned self)
{
    for (;;) {
        /* Read before the drop: once it is done, another holder may free
         * the node (these fields are set before any child exists). */
        bool root = n->root;
        spool__omp_team_t *team = n->team;
        /* Seq-cst (an acq_rel): the last drop sees every holder's writes
         * before it frees the node; taskwait's load sees the children's;
         * the write a waiter for the node waits for (W1, with the wakes
         * below, which touch no node). */
        unsigned long long old = atomic_fetch_sub_explicit(&n->count, delta, memory_order_seq_cst);
        unsigned long long refs = (old & SPOOL_OMP_REFS_MASK) - (delta & SPOOL_OMP_REFS_MASK);
        if (delta >= SPOOL_OMP_CHILD_ONE && (old - delta) < SPOOL_OMP_CHILD_ONE)
            spool__omp_task_wake(team, self, n); /* its taskwait is over */
        if ((delta & SPOOL_OMP_REFS_MASK) == 0)
            return;
        if (root) {
            if (refs == 1 && team != NULL)
                spool__omp_barrier_task_done(team, self);
            else if (refs == 1)
                spool__omp_wake_outside(n); /* a target region's end */
            return;
        }
        if (refs != 0)
            return;
        spool__omp_tnode_t *p = n->holds_parent ? n->parent : NULL;
        spool__omp_node_free(n);
        if (p == NULL)
            return;
        n = p;
        delta = 1;
    }
}

/* A deferred child of p is made: p, and each task above it run at once
 * on this thread that holds nothing yet, holds its parent, so that a
 * node is never freed while a descendant points at it. */
static void hold_chain(spool__omp_tnode_t *p)
{
    for (spool__omp_tnode_t *n = p; !n->root && !n->deferred && !n->holds_parent; n = n->parent) {
        n->holds_parent = true;
        node_hold(n->parent, 1);
    }
}

void spool__omp_node_init(spool__omp_tnode_t *n, spool__omp_tnode_t *parent,
                          spool__omp_team_t *team, const spool__omp_icv_t *icv)
{
    n->base.icv = *icv;
    n->base.node = true;
    n->parent = parent;
    n->team = team;
    n->group = NULL;
    n->taskgroup = NULL;
    atomic_init(&n->count, 1);
    atomic_init(&n->detach, 0);
    n->deps = NULL;
    n->dep = NULL;
    n->root = false;
    n->final = false;
    n->deferred = false;
    n->holds_parent = false;
    n->waited = false;
    n->urgent = false;
    n->constructed = false;
    n->lazy = false;
    n->heap = NULL;
}

/* ---- the current task --------------------------------------------------------- */

static _Thread_local spool__omp_tnode_t initial_node __attribute__((tls_model("initial-exec")));
static _Thread_local bool initial_ready __attribute__((tls_model("initial-exec")));

spool__omp_tnode_t *spool__omp_task_current_root(spool__omp_thread_t *thr)
{
    spool__omp_team_t *team = thr->ts.team;
    if (team != NULL && thr->task == &team->members[thr->ts.id].task)
        return &team->tasking->implicit[thr->ts.id];
    if (thr->task == &thr->initial) {
        if (!initial_ready) {
            spool__omp_node_init(&initial_node, NULL, NULL, &thr->initial.icv);
            initial_node.root = true;
            initial_ready = true;
        }
        return &initial_node;
    }
    spool__omp_fatal("a task without a node");
}

/* The node of an included task's stub (and of each stub above it): made
 * before anything can point at it, freed when the task ends and nothing
 * does.  The task's ICVs stay in the stub (thr->task does not move). */
static spool__omp_tnode_t *materialize(spool__omp_tnode_t *stub)
{
    if (stub->heap != NULL)
        return stub->heap;
    spool__omp_tnode_t *p = stub->parent;
    if (p->lazy)
        p = materialize(p);
    spool__omp_tnode_t *h = spool__omp_node_alloc(sizeof *h);
    unsigned char size_class = h->size_class;
    spool__omp_node_init(h, p, stub->team, &stub->base.icv);
    h->size_class = size_class;
    h->final = stub->final;
    h->group = stub->group;
    stub->heap = h;
    return h;
}

spool__omp_tnode_t *spool__omp_task_current(spool__omp_thread_t *thr)
{
    spool__omp_tnode_t *n = spool__omp_task_current_any(thr);
    return n->lazy ? materialize(n) : n;
}

/* ---- running and completing ------------------------------------------------------- */

static bool skipped_slow(const spool__omp_tnode_t *n)
{
    /* A task of a cancelled taskgroup, or descending from one.  Acquire:
     * pairs with the canceller's release (GOMP_cancel). */
    for (const spool__omp_tnode_t *t = n; t != NULL; t = t->parent)
        if (t->group != NULL && spool__omp_tgroup_cancelled(t->group))
            return true;
    return n->team != NULL && atomic_load_explicit(&n->team->bar.cancelled, memory_order_acquire);
}

/* Whether n must not run: cancelled (OMP_CANCELLATION only). */
static inline bool skipped(const spool__omp_tnode_t *n)
{
    return __builtin_expect(spool__omp_env.cancellation, 0) && skipped_slow(n);
}

/* A deferred task is complete: its successors, its taskgroup, then its
 * parent (last: the parent's drop may end the team's barrier). */
static void complete(spool__omp_tnode_t *n, unsigned self)
{
    if (n->dep != NULL)
        spool__omp_deps_done(n, self);
    /* Seq-cst (a release): pairs with the loads of taskgroup's end (W1,
     * with the wake, which touches only the team). */
    spool__omp_tgroup_t *g = n->group;
    if (g != NULL && atomic_fetch_sub_explicit(&g->count, 1, memory_order_seq_cst) == 1)
        spool__omp_task_wake(n->team, self, &g->count);
    spool__omp_tnode_t *p = n->parent;
    /* Acquire: pairs with its children's drops.  With no child node left
     * none can come (its body is over): freed at once, one drop of the
     * parent for both its counts. */
    if (atomic_load_explicit(&n->count, memory_order_acquire) == 1) {
        spool__omp_node_free(n);
        node_drop(p, SPOOL_OMP_CHILD_ONE | 1, self);
        return;
    }
    node_drop(p, SPOOL_OMP_CHILD_ONE, self);
    node_drop(n, 1, self);
}

/* Runs n's body on the calling thread as its current task. */
static void run_body(spool__omp_thread_t *thr, spool__omp_tnode_t *n)
{
    spool__omp_task_t *saved = thr->task;
    thr->task = &n->base;
    if (n->constructed || !skipped(n))
        n->fn(n->data);
    thr->task = saved;
}

void spool__omp_task_complete(spool__omp_tnode_t *n, unsigned self)
{
    complete(n, self);
}

void spool__omp_task_run(spool__omp_thread_t *thr, spool__omp_tnode_t *n, unsigned self)
{
    run_body(thr, n);
    /* Acq_rel: of the body's end and the fulfilment, the later sees the
     * earlier's writes and completes the task. */
    if (atomic_load_explicit(&n->detach, memory_order_relaxed) != 0 &&
        atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) != 1)
        return;
    complete(n, self);
}

/* ---- making tasks -------------------------------------------------------------------- */

/* The end of an included task whose stub got a node: freed if nothing
 * points at it (no deferred descendant ever held it: hold_chain), else
 * its own ref dropped. */
static void heap_end(spool__omp_thread_t *thr, spool__omp_tnode_t *h)
{
    if (!h->holds_parent) {
        spool__omp_node_free(h);
        return;
    }
    node_drop(h, 1, thr->ts.team == h->team ? thr->ts.id : UINT_MAX);
}

static bool event_fulfilled(const void *arg)
{
    /* Seq-cst (W1): pairs with omp_fulfill_event's seq-cst decrement. */
    return atomic_load_explicit(&((spool__omp_tnode_t *)arg)->detach, memory_order_seq_cst) == 0;
}

/* The encountering thread waits for an undeferred task's event (it runs
 * no other task meanwhile), and sleeps. */
static void wait_event(spool__omp_thread_t *thr, spool__omp_tnode_t *n)
{
    spool__omp_wait(thr->ts.team, thr->ts.id, n, event_fulfilled, n);
}

/* Runs n at once on the encountering thread (thr, in team as self). */
static void run_at_once(spool__omp_thread_t *thr, spool__omp_tnode_t *n, void **depend,
                        bool detached)
{
    if (depend != NULL) {
        n->waited = true;
        if (spool__omp_deps_add(n->parent, n, depend))
            spool__omp_task_wait_deps(thr, n);
    }
    run_body(thr, n);
    if (detached) {
        /* Undeferred and detached: the encountering task waits for the
         * event.  Acq_rel and seq-cst: the fulfiller's writes are seen. */
        if (atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) != 1)
            wait_event(thr, n);
    }
    if (n->dep != NULL)
        spool__omp_deps_done(n, spool__omp_self_in(thr, n->team));
    heap_end(thr, n);
}

/* An included task with no dependences and no event: a stub on this
 * stack, and a node only if something needs one (materialize). */
static inline __attribute__((always_inline)) void
run_included(spool__omp_thread_t *thr, spool__omp_tnode_t *parent, bool final, void (*fn)(void *),
             void *data, bool constructed)
{
    spool__omp_tnode_t stub;
    stub.base.icv = thr->task->icv;
    stub.base.node = true;
    stub.parent = parent;
    stub.team = thr->ts.team;
    stub.group = parent->taskgroup != NULL ? parent->taskgroup : parent->group;
    stub.taskgroup = NULL;
    stub.root = stub.deferred = stub.holds_parent = false;
    stub.final = final;
    stub.lazy = true;
    stub.heap = NULL;
    spool__omp_task_t *saved = thr->task;
    thr->task = &stub.base;
    if (constructed || !skipped(&stub))
        fn(data);
    thr->task = saved;
    if (stub.heap != NULL)
        heap_end(thr, stub.heap);
}

/* As run_included, with the argument block copied onto this stack (blocks
 * of up to STUB_COPY_MAX bytes). */
#define STUB_COPY_MAX 65536
static void run_stub(spool__omp_thread_t *thr, spool__omp_tnode_t *parent, bool final,
                     void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
                     long align, void (*first)(void *copy, void *arg), void *first_arg)
{
    if (cpyfn != NULL || first != NULL) {
        /* On this frame, which outlives the task's run below. */
        char *copy = __builtin_alloca((size_t)size + (size_t)align);
        void *at = (void *)(((uintptr_t)copy + (uintptr_t)align - 1) & ~((uintptr_t)align - 1));
        if (cpyfn != NULL)
            cpyfn(at, data);
        else if (size > 0)
            memcpy(at, data, (size_t)size);
        if (first != NULL)
            first(at, first_arg);
        data = at;
    }
    run_included(thr, parent, final, fn, data, cpyfn != NULL);
}

/* What a task's maker decides before its node exists. */
typedef struct plan {
    spool__omp_thread_t *thr;
    spool__omp_tnode_t *parent;
    spool__omp_team_t *team;
    void **depend;
    bool final, defer, detached;
    bool pending; /* detached outside any region: runs at once, completes later */
} plan_t;

/* False if no task is to be made (its region or taskgroup is cancelled). */
static bool plan(plan_t *p, bool if_clause, unsigned flags, void **depend, void *detach)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current_any(thr);
    spool__omp_team_t *team = thr->ts.team;
    if (__builtin_expect(spool__omp_env.cancellation, 0) && team != NULL) {
        /* A cancelled region or taskgroup makes no more tasks (libgomp's:
         * not even their copies, whose destructors would not run). */
        spool__omp_tgroup_t *g = parent->taskgroup != NULL ? parent->taskgroup : parent->group;
        if (atomic_load_explicit(&team->bar.cancelled, memory_order_acquire) ||
            (g != NULL && spool__omp_tgroup_cancelled(g)))
            return false;
    }
    /* A final task may be deferred; its descendants are included. */
    bool included = parent->final;
    p->thr = thr;
    p->parent = parent;
    p->team = team;
    p->final = included || (flags & SPOOL_OMP_TASK_FINAL);
    p->depend = (flags & SPOOL_OMP_TASK_DEPEND) ? depend : NULL;
    p->detached = (flags & SPOOL_OMP_TASK_DETACH) && detach != NULL;
    /* Deferred only where another thread of the team could run it (or it
     * must wait: for its event, or for siblings). */
    p->defer = team != NULL && if_clause && !included &&
               (p->detached || p->depend != NULL ||
                (team->nthreads > 1 && defer_room(team, thr->ts.id)));
    /* Outside any region a detached task runs at once, and completes when
     * its event is fulfilled: a child its parent's taskwait waits for. */
    p->pending = p->detached && team == NULL && if_clause && !included;
    return true;
}

/* Sets up node n (its block at n->data, filled) as a task of fn as p
 * decided, and runs it at once, queues it, or leaves it to its
 * dependences. */
static void launch(plan_t *p, spool__omp_tnode_t *n, void (*fn)(void *), bool constructed,
                   unsigned flags, int priority, void *detach)
{
    spool__omp_thread_t *thr = p->thr;
    spool__omp_tnode_t *parent = p->parent->lazy ? materialize(p->parent) : p->parent;
    unsigned char size_class = n->size_class;
    void *data = n->data;
    spool__omp_node_init(n, parent, p->team, &thr->task->icv);
    n->size_class = size_class;
    n->final = p->final;
    /* Its taskgroup: where it counts if deferred, where it is cancelled
     * from, and where its own children count. */
    n->group = parent->taskgroup != NULL ? parent->taskgroup : parent->group;
    n->fn = fn;
    n->data = data;
    n->constructed = constructed;
    if (p->detached) {
        atomic_init(&n->detach, 2);
        /* The handle goes in the event variable and, as gcc reads it in
         * the task's body, in the first word of the task's block. */
        omp_event_handle_t handle = (omp_event_handle_t)(uintptr_t)n;
        *(omp_event_handle_t *)detach = handle;
        *(omp_event_handle_t *)n->data = handle;
    }
    if (!p->defer && !p->pending) {
        /* Undeferred, included, or past the cutoff. */
        run_at_once(thr, n, p->depend, p->detached);
        return;
    }
    n->deferred = true;
    n->holds_parent = true;
    /* priority, a hint: above 0 (and OMP_MAX_TASK_PRIORITY above 0), the
     * task goes in front of its queue, taken first by every thread. */
    n->urgent = (flags & SPOOL_OMP_TASK_PRIORITY) && priority > 0 &&
                spool__omp_env.max_task_priority > 0;
    hold_chain(parent);
    node_hold(parent, SPOOL_OMP_CHILD_ONE | 1);
    if (n->group != NULL)
        atomic_fetch_add_explicit(&n->group->count, 1, memory_order_relaxed);
    if (p->pending) {
        n->waited = true;
        if (p->depend != NULL && spool__omp_deps_add(parent, n, p->depend))
            spool__omp_task_wait_deps(thr, n);
        spool__omp_task_run(thr, n, UINT_MAX);
        return;
    }
    if (p->depend != NULL && spool__omp_deps_add(parent, n, p->depend))
        return; /* queued when its last predecessor completes */
    spool__omp_task_push(p->team, thr->ts.id, n);
}

void spool__omp_task_make(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long size, long align, bool if_clause, unsigned flags, void **depend,
                          int priority, void *detach, void (*first)(void *copy, void *arg),
                          void *first_arg)
{
    plan_t p;
    if (!plan(&p, if_clause, flags, depend, detach))
        return;
    if (align < 1)
        align = 1;
    if (!p.defer && !p.detached && p.depend == NULL &&
        (unsigned long)size + (unsigned long)align <= STUB_COPY_MAX) {
        run_stub(p.thr, p.parent, p.final, fn, data, cpyfn, size, align, first, first_arg);
        return;
    }
    size_t bytes = sizeof(spool__omp_tnode_t) + (size_t)size + (size_t)align - 1;
    bool copy = p.defer || cpyfn != NULL || first != NULL;
    spool__omp_tnode_t *n = spool__omp_node_alloc(copy ? bytes : sizeof(spool__omp_tnode_t));
    n->data = data;
    if (copy) {
        n->data = spool__omp_block_of(n, (size_t)align);
        if (cpyfn != NULL)
            cpyfn(n->data, data);
        else if (size > 0)
            memcpy(n->data, data, (size_t)size);
        if (first != NULL)
            first(n->data, first_arg);
    }
    launch(&p, n, fn, cpyfn != NULL, flags, priority, detach);
}

/* ---- the __kmpc_ door's tasks ------------------------------------------------------------ */

static inline __attribute__((always_inline)) bool
run_if_included(spool__omp_tnode_t *n, void (*fn)(void *), bool if_clause, bool final)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *parent = spool__omp_task_current_any(thr);
    spool__omp_team_t *team = thr->ts.team;
    if (if_clause && !parent->final && team != NULL && team->nthreads > 1 &&
        defer_room(team, thr->ts.id))
        return false;
    run_included(thr, parent, parent->final || final, fn, n->data, false);
    spool__omp_node_free(n);
    return true;
}

bool spool__omp_task_included(spool__omp_tnode_t *n, void (*fn)(void *), bool final)
{
    return run_if_included(n, fn, true, final);
}

void spool__omp_task_submit(spool__omp_tnode_t *n, void (*fn)(void *), bool if_clause,
                            unsigned flags, void **depend, int priority)
{
    /* Included, as GOMP_task's inline case: its node is only memory. */
    if (__builtin_expect(depend == NULL && !(flags & SPOOL_OMP_TASK_DETACH), 1) &&
        run_if_included(n, fn, if_clause, flags & SPOOL_OMP_TASK_FINAL))
        return;
    /* A detached task's handle is its node, given out already (launch's
     * write in the block's first word is the door's node: kmp_task.c). */
    omp_event_handle_t handle;
    plan_t p;
    if (!plan(&p, if_clause, flags, depend, &handle)) {
        spool__omp_node_free(n);
        return;
    }
    launch(&p, n, fn, false, flags, priority, &handle);
}

void spool__omp_task_discard(spool__omp_tnode_t *n)
{
    spool__omp_node_free(n);
}

void spool__omp_task_end_undeferred(spool__omp_tnode_t *n, spool__omp_task_t *saved,
                                    bool detached)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    /* As run_at_once's detached task: the maker waits for the event.
     * Acq_rel pairs with omp_fulfill_event's seq-cst decrement: the
     * fulfiller's writes are seen. */
    if (detached && atomic_fetch_sub_explicit(&n->detach, 1, memory_order_acq_rel) != 1)
        wait_event(thr, n);
    thr->task = saved;
    heap_end(thr, n);
}

SPOOL_OMP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                             long size, long align, bool if_clause, unsigned flags, void **depend,
                             int priority, void *detach)
{
    /* The included task that needs no copy of its block (a task past the
     * cutoff, in a team of one, if(0), final), inline. */
    if (__builtin_expect(cpyfn == NULL &&
                             (flags & (SPOOL_OMP_TASK_DEPEND | SPOOL_OMP_TASK_DETACH)) == 0,
                         1)) {
        spool__omp_thread_t *thr = spool__omp_thread();
        spool__omp_tnode_t *parent = spool__omp_task_current_any(thr);
        spool__omp_team_t *team = thr->ts.team;
        bool final = parent->final || (flags & SPOOL_OMP_TASK_FINAL);
        if (!if_clause || parent->final || team == NULL || team->nthreads == 1 ||
            !defer_room(team, thr->ts.id)) {
            run_included(thr, parent, final, fn, data, false);
            return;
        }
    }
    spool__omp_task_make(fn, data, cpyfn, size, align, if_clause, flags, depend, priority, detach,
                         NULL, NULL);
}
