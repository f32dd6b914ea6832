/* Internal: a scope's state, for the modules that spawn into scopes. */
#ifndef SPOOL_SCOPE_H
#define SPOOL_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "job/job.h"
#include "sleep/latch.h"
#include "scheduler/worker.h"

/*
 * A block of spawns (scope.md): up to SPOOL__SPAWN_BLOCK_CAP
 * calls of one scope behind one deque entry, so that a spawn by the scope's
 * own worker is two stores into the newest block instead of a job block and a
 * push, and a thief takes a whole block with one steal.  Whoever holds the
 * block (its owner while private, else the worker that took it off a deque)
 * takes the newest entry, hands the rest on by pushing the block again, and
 * runs the entry.  Local blocks (not counted on the latch) are private to the
 * scope's worker; publication counts their entries and makes them counted.
 */
#define SPOOL__SPAWN_BLOCK_CAP 62u
typedef struct spool__spawn_block spool__spawn_block_t;
struct spool__spawn_block {
    spool__job_t base; /* its first word: a spare's link in a block cache */
    spool_scope_t *scope;
    uint32_t count; /* entries held: [0, count), the newest last */
    struct {
        spool_scope_fn fn;
        void *arg;
    } entries[SPOOL__SPAWN_BLOCK_CAP];
};

enum { SPOOL__LOCAL_CLOSED, SPOOL__LOCAL_BLOCKS, SPOOL__LOCAL_FIFO };

struct spool_scope_s {
    /* One count for the body, one per pending spawn or scope broadcast. */
    spool__count_latch_t latch;
    /* Cancellation (scope_cancel.c): set once by spool_scope_cancel; a
     * scope counts as cancelled if it or any scope up its parent chain is
     * (parent: the scope whose body or job made this one; it outlives this
     * one). */
    atomic_int cancelled;
    spool_scope_t *parent;
    /* The isolation region the scope was made in: its jobs' region, also
     * for those handed on outside it (isolate.md, X1). */
    uint64_t region;
    spool_pool_t *pool;        /* NULL: no pool could be started; spawns run inline */
    spool__job_fifo_t **fifos; /* FIFO scopes: one per worker, made by its first spawn */
    bool fifo;
    /* In-place scopes: the body may block until its own spawns have run, so
     * a spawn by the body's worker is published at once. */
    bool publish_spawns;
    /* Credits (scope.md): spawns by local_worker, the
     * worker that runs the scope, go into local spawn blocks (a FIFO
     * scope's: local FIFO tickets), not counted on the latch while they are
     * private; local says how many entries (references) are.
     * local_worker is set once, at init (NULL: no credits), and any spawner
     * compares it; the rest is touched by local_worker only: local_open
     * (SPOOL__LOCAL_BLOCKS or SPOOL__LOCAL_FIFO, the kind of local spawns
     * the scope takes; SPOOL__LOCAL_CLOSED once its end stops taking them:
     * one field, so that a spawn tests one), local, and
     * open_block, the local block that later spawns may join while it is the
     * deque's newest job (at index open_index), NULL once published,
     * emptied or full. */
    spool__worker_t *local_worker;
    uint8_t local_open;
    size_t local;
    spool__spawn_block_t *open_block;
    int64_t open_index;
};

/* n local spawns (a block's entries, a FIFO ticket's references) made
 * public: counted from now on. */
static inline void spool__scope_count_published(spool_scope_t *scope, size_t n)
{
    scope->local -= n;
    /* The publisher runs inside the scope (its body or its end's drain),
     * whose body count is still held. */
    spool__count_latch_add(&scope->latch, n);
}

/* ---- cancellation (scope_cancel.c) ---- */

/* How many scopes are cancelled and not yet ended: while none is, no scope
 * job needs to walk a parent chain before it runs. */
extern atomic_uint spool__scopes_cancelled;

/* Is s, or a scope up its parent chain, cancelled?  (The walk.) */
bool spool__scope_cancelled_slow(const spool_scope_t *s);

/* Should a job of s be dropped (or a spawn into s refused)?  One relaxed
 * load while no scope is cancelled anywhere; a job that has passed this
 * test when spool_scope_cancel returns may still run (one per worker). */
static inline bool spool__scope_dropping(const spool_scope_t *s)
{
    /* Relaxed: a hint that the walk is needed; cancellation promises
     * nothing to a job already past its test. */
    return SPOOL__UNLIKELY(atomic_load_explicit(&spool__scopes_cancelled, memory_order_relaxed) !=
                           0) &&
           spool__scope_cancelled_slow(s);
}

/* The cold half of spool__scope_call: runs fn(scope, arg) as a job of scope
 * on w (NULL: a thread outside any pool), in scope's context, or drops it
 * (counted) if scope counts as cancelled. */
void spool__scope_call_cold(struct spool__worker *w, spool_scope_t *scope, spool_scope_fn fn,
                            void *arg);

/* Runs fn(scope, arg), a job of scope, on w: at once (a tail call) when w
 * already runs in scope's context and no scope is cancelled anywhere. */
static SPOOL__ALWAYS_INLINE void spool__scope_call(struct spool__worker *w, spool_scope_t *scope,
                                                   spool_scope_fn fn, void *arg)
{
    if (SPOOL__LIKELY(w != NULL && w->ctx.top.scope == scope &&
                      atomic_load_explicit(&spool__scopes_cancelled, memory_order_relaxed) == 0)) {
        fn(scope, arg);
        return;
    }
    spool__scope_call_cold(w, scope, fn, arg);
}

/* For a loop of scope's jobs on w (a counted block's entries): enters
 * scope's context if w is not in it (true: leave it after, with
 * spool__ctx_pop). */
static inline bool spool__scope_enter(struct spool__worker *w, spool_scope_t *scope)
{
    /* The scope alone is compared: a job starts with its worker's top
     * entry covering the deque's bottom (spool__ctx_enter), and nothing
     * here takes jobs from below it. */
    if (SPOOL__LIKELY(w->ctx.top.scope == scope))
        return false;
    return spool__ctx_push(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                           (spool__context_t){scope, w->ctx.top.region});
}

/* w (NULL: a thread outside any pool) drops a job of a cancelled scope:
 * counted, and noted for the timeline's record of the job. */
void spool__scope_dropped(struct spool__worker *w);

/* A scope with no body (group.c): opened on owner (NULL: a thread outside
 * any pool) with parent as its parent scope, in pool (NULL: spawns run at
 * once); closed, waiting for its jobs, by the same thread. */
void spool__scope_open(spool_scope_t *s, spool_pool_t *pool, struct spool__worker *owner,
                       bool fifo, spool_scope_t *parent);
void spool__scope_close(spool_scope_t *s, spool_pool_t *pool, struct spool__worker *owner,
                        bool fifo);

/* Copying spawns (spawn_copy.c): the function of every job that holds a
 * copy (arg is the copy's block), and what frees a copy whose job is
 * dropped unrun. */
void spool__copy_run(spool_scope_t *scope, void *arg);
void spool__copy_drop(void *arg);

/* A job of a cancelled scope, fn(arg), dropped unrun by w (NULL: a thread
 * outside any pool): what it holds is freed, and the drop counted. */
static inline void spool__scope_drop(struct spool__worker *w, spool_scope_fn fn, void *arg)
{
    if (fn == spool__copy_run)
        spool__copy_drop(arg);
    spool__scope_dropped(w);
}

/* fn(scope, arg), a spawn that could have no memory, run at once by the
 * spawner w (NULL: outside any pool) instead (scope_spawn.c).  Returns 0. */
int spool__scope_run_at_spawn(spool_scope_t *scope, struct spool__worker *w, spool_scope_fn fn,
                              void *arg);

/* Spawns that are not local (scope_spawn.c): counted on the latch when
 * made; a FIFO scope's local spawn.  0 (run at once if no memory could be
 * had). */
int spool__scope_spawn_counted(spool_scope_t *scope, struct spool__worker *w, spool_scope_fn fn,
                               void *arg);
int spool__scope_spawn_local_fifo(spool_scope_t *scope, struct spool__worker *w,
                                  spool_scope_fn fn, void *arg);

/* The execute functions of a local spawn block (uncounted while private)
 * and of a counted one, and what publishing a block does (a local one's
 * entries are counted on its scope's latch; returns how many calls it
 * holds: batch.c). */
void spool__scope_local_execute(spool__job_t *job);
void spool__scope_counted_execute(spool__job_t *job);
size_t spool__scope_block_published(spool__job_t *job);

#endif
