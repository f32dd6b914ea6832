/*
 * Internal: libspool-omp's explicit tasks (task.c, depend.c, taskloop.c;
 * omp.md, "Tasks").  A task is a node: its ICVs (first, so that a thread's
 * current task points at them), its parent, its taskgroup, its counts, and
 * its function with the argument block behind it.  A team's deferred tasks
 * wait in one queue per thread of the team (a word lock each): the owner
 * takes its newest, the others its oldest, and only threads of the team
 * take them, so that a task runs as a thread of the team that made it.
 * Never installed.
 */
#ifndef SPOOL_OMP_TASK_H
#define SPOOL_OMP_TASK_H

#include <limits.h>

#include "barrier.h"
#include "team.h"
#include "wait.h"

/* gcc's GOMP_task flags. */
enum {
    SPOOL_OMP_TASK_UNTIED = 1,
    SPOOL_OMP_TASK_FINAL = 2,
    SPOOL_OMP_TASK_MERGEABLE = 4,
    SPOOL_OMP_TASK_DEPEND = 8,
    SPOOL_OMP_TASK_PRIORITY = 16,
    SPOOL_OMP_TASK_UP = 256,
    SPOOL_OMP_TASK_GRAINSIZE = 512,
    SPOOL_OMP_TASK_IF = 1024,
    SPOOL_OMP_TASK_NOGROUP = 2048,
    SPOOL_OMP_TASK_REDUCTION = 4096,
    SPOOL_OMP_TASK_DETACH = 8192,
    SPOOL_OMP_TASK_STRICT = 16384
};

typedef struct spool__omp_tnode spool__omp_tnode_t;
struct spool__omp_deps;
struct spool__omp_dnode;

/* A taskgroup: the tasks made in it, and their descendants, not complete. */
typedef struct spool__omp_tgroup {
    _Atomic unsigned long count;
    _Atomic bool cancelled;
    /* A worksharing construct's (reduction(task, ...)): cancelling it, or
     * its enclosing taskgroup, cancels the enclosing one (libgomp's). */
    bool workshare;
    struct spool__omp_tgroup *prev; /* the enclosing one of the same task */
    /* Its task reductions and the enclosing ones (task_reduce.c), or NULL. */
    uintptr_t *reductions;
    /* The same for the __kmpc_ door's (kmp_taskred.c). */
    struct spool__kmp_taskred *kmp_reductions;
} spool__omp_tgroup_t;

struct spool__omp_tnode {
    spool__omp_task_t base;          /* its ICVs: thr->task while it runs */
    spool__omp_tnode_t *parent;      /* NULL: an implicit or initial task */
    spool__omp_team_t *team;         /* its team (NULL: outside any region) */
    spool__omp_tgroup_t *group;      /* the taskgroup it counts in, if any */
    spool__omp_tgroup_t *taskgroup;  /* the innermost taskgroup open in it */
    /* Low half: its refs, 1 until it is complete (a root's: always) plus
     * one per child node that holds it; the node is freed at 0 (children
     * point at it).  High half: its deferred children not complete
     * (taskwait), SPOOL_OMP_CHILD_ONE each. */
    _Atomic unsigned long long count;
    /* A detached task: its body's end and its event's fulfilment, each
     * takes one; the one that takes the last completes the task. */
    _Atomic unsigned detach;
    spool__omp_tnode_t *next, *prev; /* in its queue */
    void (*fn)(void *);
    void *data;
    struct spool__omp_deps *deps;    /* its children's dependences, or NULL */
    struct spool__omp_dnode *dep;    /* its own dependences, or NULL */
    unsigned char size_class;        /* 1: from the node cache */
    bool root;                       /* implicit, initial or a target's: never freed */
    bool final;                      /* a final task: descendants are included */
    bool deferred;                   /* queued (else run at once by its maker) */
    bool holds_parent;               /* holds one of its parent's refs */
    bool waited;                     /* its maker waits for it in place */
    bool urgent;                     /* priority above 0: queued in front */
    /* Its block was made by gcc's copy function (C++ copy constructors):
     * its body runs even when cancelled, so that the destructors at its
     * end run (libgomp's). */
    bool constructed;
    /* An included task's stub, on its maker's stack: base, parent, team,
     * group, final; its node (heap) is made when something needs one. */
    bool lazy;
    spool__omp_tnode_t *heap;
};

#define SPOOL_OMP_CHILD_ONE (1ull << 32)
#define SPOOL_OMP_REFS_MASK 0xffffffffull

/* A queue of a team's deferred tasks, one per thread of the team. */
typedef struct spool__omp_tqueue {
    SPOOL_OMP_ALIGNED _Atomic int lock;
    _Atomic unsigned long len;       /* read without the lock */
    spool__omp_tnode_t *head, *tail; /* head: the oldest, or an urgent one */
} spool__omp_tqueue_t;

/* A team's tasks (team->tasking). */
typedef struct spool__omp_tasking {
    spool__omp_tqueue_t *queues;     /* capacity of them */
    spool__omp_tnode_t *implicit;    /* the implicit tasks' nodes */
    unsigned capacity;
    /* Threads whose implicit task has returned (the region's end). */
    SPOOL_OMP_ALIGNED _Atomic unsigned ended;
    /* reduction(task, ...) on the region: its implicit tasks' group. */
    spool__omp_tgroup_t *reduction_group;
} spool__omp_tasking_t;

/* ---- task.c ---------------------------------------------------------------- */

spool__omp_tasking_t *spool__omp_tasking_new(unsigned capacity);
void spool__omp_tasking_free(spool__omp_tasking_t *tk);
/* A team's tasks as a region starts (thread 0, before any member runs). */
void spool__omp_tasking_start(spool__omp_team_t *team);
/* The calling thread's implicit task has returned: it runs the team's
 * tasks until every thread's has and none is left (if the team has any). */
void spool__omp_task_region_end(spool__omp_thread_t *thr);

/* The calling thread's current task's node (made if it was a stub). */
spool__omp_tnode_t *spool__omp_task_current(spool__omp_thread_t *thr);
/* The calling thread's current task when it is an implicit or initial
 * task (its node is its team's, or the thread's). */
spool__omp_tnode_t *spool__omp_task_current_root(spool__omp_thread_t *thr);

/* The calling thread's current task: its node, or its stub if it has none
 * (base, parent, team, group, taskgroup, final and lazy are valid). */
static inline __attribute__((always_inline)) spool__omp_tnode_t *
spool__omp_task_current_any(spool__omp_thread_t *thr)
{
    if (__builtin_expect(thr->task->node, 1)) {
        /* An explicit task's node or stub, or a root's (a target region's). */
        spool__omp_tnode_t *n = (spool__omp_tnode_t *)(void *)thr->task;
        return n->lazy && n->heap != NULL ? n->heap : n;
    }
    return spool__omp_task_current_root(thr);
}
/* A root task (a target region's initial task): set up, and ended (its
 * tasks complete). */
void spool__omp_task_root_init(spool__omp_tnode_t *node, const spool__omp_icv_t *icv);
void spool__omp_task_root_end(spool__omp_tnode_t *node);

/* Makes a task of fn on data (copied by cpyfn, or memcpy, into size bytes
 * at align) as GOMP_task does; first, if not NULL, is called on the copy
 * before the task can run (taskloop sets its bounds). */
void spool__omp_task_make(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long size, long align, bool if_clause, unsigned flags, void **depend,
                          int priority, void *detach, void (*first)(void *copy, void *arg),
                          void *first_arg);

/* Waits, running the current task's descendants, until *count is 0 (a
 * taskgroup; the count is what its completions wake), until node has no
 * deferred child left (taskwait), or until node's predecessors are
 * complete (it waits in place); then sleeps (omp.md, "Waits"). */
void spool__omp_task_wait_count(spool__omp_thread_t *thr, _Atomic unsigned long *count);
void spool__omp_task_wait_children(spool__omp_thread_t *thr, spool__omp_tnode_t *node);
void spool__omp_task_wait_deps(spool__omp_thread_t *thr, spool__omp_tnode_t *node);
/* A completion may have made a wait on obj ready (after its seq-cst
 * write): wakes the waiters of team (self: the caller's id in it, or
 * UINT_MAX), or of no team when team is NULL. */
static inline void spool__omp_task_wake(spool__omp_team_t *team, unsigned self, const void *obj)
{
    if (team != NULL)
        spool__omp_wake(team, self, obj);
    else
        spool__omp_wake_outside(obj);
}
/* Queues a task that is ready (its dependences met): on the queue of the
 * calling thread if it is in node's team, else thread 0's. */
void spool__omp_task_ready(spool__omp_tnode_t *node);
/* Runs a task taken from a queue (body, then completion unless it waits
 * for its event), as thread self of its team. */
void spool__omp_task_run(spool__omp_thread_t *thr, spool__omp_tnode_t *node, unsigned self);
/* A deferred task's body is over and its event (if any) fulfilled: it
 * completes (self: the caller's id in its team, or UINT_MAX). */
void spool__omp_task_complete(spool__omp_tnode_t *n, unsigned self);
/* The calling thread's id in team, or UINT_MAX if it is not in it. */
static inline unsigned spool__omp_self_in(const spool__omp_thread_t *thr,
                                          const spool__omp_team_t *team)
{
    return thr->ts.team == team && team != NULL ? thr->ts.id : UINT_MAX;
}
/* A thread's freed nodes of the small class (a node and its block in
 * SPOOL_OMP_NODE_SMALL bytes), for its next tasks. */
#define SPOOL_OMP_NODE_SMALL 384
#define SPOOL_OMP_NODE_CACHE_MAX 64
typedef struct spool__omp_node_cache {
    spool__omp_tnode_t *free;
    unsigned count;
    bool keyed; /* the thread's exit frees it */
} spool__omp_node_cache_t;
extern _Thread_local spool__omp_node_cache_t spool__omp_node_cache
    __attribute__((tls_model("initial-exec")));
spool__omp_tnode_t *spool__omp_node_alloc_slow(size_t bytes);
void spool__omp_node_free_slow(spool__omp_tnode_t *n);

/* A node with room for bytes in all (its size_class set). */
static inline __attribute__((always_inline)) spool__omp_tnode_t *spool__omp_node_alloc(size_t bytes)
{
    spool__omp_node_cache_t *c = &spool__omp_node_cache;
    spool__omp_tnode_t *n = c->free;
    if (__builtin_expect(bytes <= SPOOL_OMP_NODE_SMALL && n != NULL, 1)) {
        c->free = n->next;
        c->count--;
        return n;
    }
    return spool__omp_node_alloc_slow(bytes);
}

/* Frees a node (its dependences' table too). */
static inline __attribute__((always_inline)) void spool__omp_node_free(spool__omp_tnode_t *n)
{
    spool__omp_node_cache_t *c = &spool__omp_node_cache;
    if (__builtin_expect(n->deps == NULL && n->size_class == 1 && c->keyed &&
                             c->count < SPOOL_OMP_NODE_CACHE_MAX,
                         1)) {
        n->next = c->free;
        c->free = n;
        c->count++;
        return;
    }
    spool__omp_node_free_slow(n);
}

/* The block after node n, aligned to align. */
static inline void *spool__omp_block_of(spool__omp_tnode_t *n, size_t align)
{
    return (void *)(((uintptr_t)(n + 1) + (uintptr_t)align - 1) & ~((uintptr_t)align - 1));
}

/* The __kmpc_ door's tasks: a node with a block of size bytes at align
 * after it (its data), which the compiler fills; then submitted as a task
 * of fn (GOMP_task's if_clause, flags, depend and priority), or run by
 * its maker between begin and end (an undeferred task, final if final;
 * *saved keeps the task it interrupts; a detached one's end waits for its
 * event). */
static inline __attribute__((always_inline)) spool__omp_tnode_t *
spool__omp_task_alloc(size_t size, size_t align)
{
    spool__omp_tnode_t *n = spool__omp_node_alloc(sizeof(spool__omp_tnode_t) + size + align - 1);
    n->data = spool__omp_block_of(n, align);
    n->deps = NULL; /* node_free reads it, launched or not */
    return n;
}
/* Runs a node's task (if(1), no dependences, no event) at once where
 * GOMP_task would include it and frees it; false where it would be
 * deferred (spool__omp_task_submit's own first case). */
bool spool__omp_task_included(spool__omp_tnode_t *n, void (*fn)(void *), bool final);
void spool__omp_task_submit(spool__omp_tnode_t *n, void (*fn)(void *), bool if_clause,
                            unsigned flags, void **depend, int priority);
void spool__omp_task_begin_undeferred(spool__omp_tnode_t *n, bool final, bool detached,
                                      spool__omp_task_t **saved);
void spool__omp_task_end_undeferred(spool__omp_tnode_t *n, spool__omp_task_t *saved,
                                    bool detached);
/* Frees a node of spool__omp_task_alloc that became no task. */
void spool__omp_task_discard(spool__omp_tnode_t *n);
/* Sets up a node (count 1, not a root, no group). */
void spool__omp_node_init(spool__omp_tnode_t *n, spool__omp_tnode_t *parent,
                          spool__omp_team_t *team, const spool__omp_icv_t *icv);

/* ---- task_queue.c -------------------------------------------------------------- */

/* Appends node to queue id of team (puts it in front if urgent) and wakes
 * a parked waiter. */
void spool__omp_task_push(spool__omp_team_t *team, unsigned id, spool__omp_tnode_t *node);
/* Takes a queued task of team for thread id, descending from anc (NULL:
 * any): its own newest, else another thread's oldest; NULL if none. */
spool__omp_tnode_t *spool__omp_task_take(spool__omp_team_t *team, unsigned id,
                                         const spool__omp_tnode_t *anc);
/* Frees a node's children's dependence table (depend.c). */
void spool__omp_deps_free(struct spool__omp_deps *deps);

/* ---- taskloop.c --------------------------------------------------------------- */

/* Whether tasks of taskgroup g are cancelled (a workshare taskgroup's
 * enclosing one counts). */
static inline bool spool__omp_tgroup_cancelled(const spool__omp_tgroup_t *g)
{
    /* Acquire: pairs with the canceller's release store (taskloop.c). */
    return atomic_load_explicit(&g->cancelled, memory_order_acquire) ||
           (g->workshare && g->prev != NULL &&
            atomic_load_explicit(&g->prev->cancelled, memory_order_acquire));
}
/* cancel taskgroup: the current task's innermost taskgroup (false if none). */
bool spool__omp_taskgroup_cancel(spool__omp_thread_t *thr);
/* Whether that taskgroup is cancelled (a cancellation point). */
bool spool__omp_taskgroup_cancelled(spool__omp_thread_t *thr);

/* ---- task_reduce.c ------------------------------------------------------------ */

/* A team about to start (its size final, no member running yet): gives it
 * the task reductions of the GOMP_parallel_reductions that starts it. */
void spool__omp_reductions_team(spool__omp_team_t *team);
/* spool__omp_ws_enter, with reduction(task, ...) if reductions is not NULL:
 * the thread opens a taskgroup of its own, and the first thread registers
 * the items for the team before its construct is ready while every other
 * shares its chunks. */
bool spool__omp_ws_enter_reducing(spool__omp_thread_t *thr, uintptr_t *reductions);

/* ---- depend.c ----------------------------------------------------------------- */

/* Records node's dependences (gcc's depend array) among its siblings:
 * true if it must wait for some (then it is queued when they complete). */
bool spool__omp_deps_add(spool__omp_tnode_t *parent, spool__omp_tnode_t *node, void **depend);
/* node is complete: its successors whose last dependence it was are
 * queued (or, waited for in place, let go: self is the caller's id in
 * node's team, or UINT_MAX). */
void spool__omp_deps_done(spool__omp_tnode_t *node, unsigned self);
/* Predecessors of a node with dependences not complete (a seq-cst load). */
unsigned long spool__omp_deps_pending(const spool__omp_tnode_t *node);

#endif
