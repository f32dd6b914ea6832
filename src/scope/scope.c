/* Scopes: spool_scope / spool_scope_fifo, the in-place variants and
 * spool_scope_spawn. */
#include <errno.h>
#include <stdlib.h>

#include "scope/scope.h"

#include "pool/global.h"
#include "platform/test_hooks.h"
#include "scheduler/worker.h"

/* Scope entry and end are inlined into each public entry point with its
 * kinds constant (FIFO or LIFO, in place or not, on a worker or not), so
 * that a LIFO scope on a worker, the one a recursive program opens per
 * call, tests none of the other kinds' cases. */
static SPOOL__ALWAYS_INLINE void scope_init(spool_scope_t *s, spool_pool_t *pool,
                                            spool__worker_t *owner, bool fifo, bool in_place,
                                            spool_scope_t *parent)
{
    if (spool__worker_count_latch_init(&s->latch, owner, false) != 0)
        spool__abort("cannot initialise a scope's latch");
    atomic_init(&s->cancelled, 0);
    s->parent = parent;
    s->region = owner != NULL ? owner->ctx.top.region : 0;
    s->pool = pool;
    s->fifo = fifo && pool != NULL;
    s->fifos = NULL;
    s->publish_spawns = in_place;
    s->local_worker = in_place || pool == NULL ? NULL : owner;
    s->local = 0;
    s->open_block = NULL; /* open_index is read only while this is set */
    if (s->fifo) {
        s->fifos = calloc(pool->num_slots, sizeof *s->fifos);
        if (s->fifos == NULL)
            s->fifo = false; /* out of memory: still correct, in LIFO order */
    }
    s->local_open = s->local_worker == NULL ? SPOOL__LOCAL_CLOSED
                    : s->fifo               ? SPOOL__LOCAL_FIFO
                                            : SPOOL__LOCAL_BLOCKS;
}

/* Spawn blocks, below. */
static SPOOL__ALWAYS_INLINE bool run_newest_entry_in_place(spool_scope_t *s,
                                                           spool__worker_t *owner);

/* Runs the owner's local spawns still private (popping its newest jobs,
 * whatever they are, as its wait loop would), then drops the body's count,
 * waits for every counted job, frees the FIFOs.  The arguments are
 * scope_init's: they say, as constants where inlined, which of the steps
 * below can apply (local_open, fifos and the latch's kind are set from them
 * at init, and only this function changes them). */
static SPOOL__ALWAYS_INLINE void scope_complete(spool_scope_t *s, spool_pool_t *pool,
                                                spool__worker_t *owner, bool fifo,
                                                bool in_place)
{
    if (!in_place && pool != NULL && s->local_open != SPOOL__LOCAL_CLOSED) {
        /* Every local spawn still private lies above the deque's state when
         * the scope began, so popping reaches each before anything older. */
        /* Looked at once per scope: a timeline that starts meanwhile sees
         * the rest of these entries inside the job that runs the scope. */
        if (s->local > 0) { /* apart: a scope that spawned nothing sets nothing up */
#if SPOOL__TRACE_ENABLED
            /* The entries run in place are recorded one by one while the
             * timeline records (the jobs popped record themselves). */
            spool__trace_t *saved = owner->recording;
            owner->recording = spool__trace_current(&pool->trace);
            owner->trace_from = SPOOL__FROM_OWN;
#endif
            do {
                if (!fifo && run_newest_entry_in_place(s, owner))
                    continue;
                spool__job_t *job = spool__worker_pop(owner);
                if (SPOOL__UNLIKELY(job == NULL))
                    spool__abort("internal error: a scope's local spawn is missing");
                SPOOL__STAT_INC(owner->stats.jobs_executed);
                /* Above the scope's base: made inside it (wait.md). */
                spool__run_taken(owner, job, (spool__taken_t){SPOOL__FROM_OWN, false});
            } while (s->local > 0);
#if SPOOL__TRACE_ENABLED
            owner->recording = saved;
#endif
        }
        s->local_open = SPOOL__LOCAL_CLOSED; /* later spawns, from jobs run below, count */
    }
    spool__count_latch_wait(&s->latch, owner);
    if (fifo && s->fifos != NULL) {
        /* Every job has run, so every ticket has been spent and freed. */
        for (unsigned i = 0; i < pool->num_slots; i++) {
            if (s->fifos[i] != NULL)
                spool__job_fifo_delete(s->fifos[i]);
        }
        free(s->fifos);
    }
    if (owner == NULL) /* the latch is a lock latch (spool__worker_count_latch_init) */
        spool__count_latch_destroy(&s->latch);
    /* Relaxed: set by a job of the scope or its body, both done by now. */
    if (SPOOL__UNLIKELY(atomic_load_explicit(&s->cancelled, memory_order_relaxed) != 0))
        atomic_fetch_sub_explicit(&spool__scopes_cancelled, 1, memory_order_relaxed);
}

/* Out of line, for task groups (group.c): a scope opened and closed by its
 * caller, with no body. */
void spool__scope_open(spool_scope_t *s, spool_pool_t *pool, spool__worker_t *owner, bool fifo,
                       spool_scope_t *parent)
{
    if (fifo)
        scope_init(s, pool, owner, true, false, parent);
    else
        scope_init(s, pool, owner, false, false, parent);
}

void spool__scope_close(spool_scope_t *s, spool_pool_t *pool, spool__worker_t *owner, bool fifo)
{
    if (fifo)
        scope_complete(s, pool, owner, true, false);
    else
        scope_complete(s, pool, owner, false, false);
}

/* The body and the end run in the scope's context: scopes made there, and
 * by the jobs the body forks, are its children (scope_cancel.c). */
static SPOOL__ALWAYS_INLINE void run_scope(spool__worker_t *w, spool_pool_t *pool,
                                           spool_scope_fn body, void *arg, bool fifo,
                                           bool in_place, spool_scope_t *outside_parent)
{
    spool_scope_t s;
    if (w != NULL) {
        scope_init(&s, pool, w, fifo, in_place,
                   outside_parent != NULL ? outside_parent : w->ctx.top.scope);
        bool entered =
            spool__ctx_push(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            (spool__context_t){&s, w->ctx.top.region});
        body(&s, arg);
        scope_complete(&s, pool, w, fifo, in_place);
        if (entered)
            spool__worker_ctx_pop(w);
        return;
    }
    spool_scope_t *prev = spool__outside_scope;
    scope_init(&s, pool, w, fifo, in_place, outside_parent != NULL ? outside_parent : prev);
    spool__outside_scope = &s;
    body(&s, arg);
    scope_complete(&s, pool, w, fifo, in_place);
    spool__outside_scope = prev;
}

typedef struct scope_call {
    spool_scope_fn body;
    void *arg;
    bool fifo;
    spool_scope_t *parent; /* the caller's, outside the pool */
} scope_call_t;

static void scope_in_worker(void *arg)
{
    scope_call_t *c = arg;
    spool__worker_t *w = spool__current_worker();
    SPOOL__ASSUME(w != NULL); /* run as a pool's job */
    if (c->fifo)
        run_scope(w, w->pool, c->body, c->arg, true, false, c->parent);
    else
        run_scope(w, w->pool, c->body, c->arg, false, false, c->parent);
}

/* A scope opened outside any pool: on a worker of the global pool, or, if
 * none can be started, all on this thread. */
static SPOOL__NOINLINE void scope_outside_pool(spool_scope_fn body, void *arg, bool fifo)
{
    spool_pool_t *global = spool__global_pool();
    scope_call_t call = {.body = body, .arg = arg, .fifo = fifo, .parent = spool__outside_scope};
    if (global != NULL && spool__pool_run_root(global, scope_in_worker, &call) == 0)
        return;
    run_scope(NULL, NULL, body, arg, fifo, false, NULL);
}

static SPOOL__ALWAYS_INLINE void scope_on_worker(spool_scope_fn body, void *arg, bool fifo)
{
    spool__worker_t *w = spool__current_worker();
    if (SPOOL__LIKELY(w != NULL)) {
        spool_pool_t *pool = w->pool;
        SPOOL__ASSUME(pool != NULL); /* a worker's pool: folds run_scope's tests away */
        run_scope(w, pool, body, arg, fifo, false, NULL);
        return;
    }
    scope_outside_pool(body, arg, fifo);
}

static SPOOL__ALWAYS_INLINE void scope_in_place(spool_scope_fn body, void *arg, bool fifo)
{
    spool__worker_t *w = spool__current_worker();
    run_scope(w, w != NULL ? w->pool : spool__global_pool(), body, arg, fifo, true, NULL);
}

void spool_scope(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_scope: NULL function");
    scope_on_worker(body, arg, false);
}

void spool_scope_fifo(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_scope_fifo: NULL function");
    scope_on_worker(body, arg, true);
}

void spool_in_place_scope(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_in_place_scope: NULL function");
    scope_in_place(body, arg, false);
}

void spool_in_place_scope_fifo(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_in_place_scope_fifo: NULL function");
    scope_in_place(body, arg, true);
}

/* ---- spawn blocks (scope.h; scope.md) ------------------ */

/* Gives b, no job any more, back to w's block cache. */
static SPOOL__ALWAYS_INLINE void block_free(spool__worker_t *w, spool__spawn_block_t *b)
{
    spool__block_put(&w->blocks, &w->pool->blocks, b, sizeof *b);
}

/* A local block whose last entry its scope's worker w took, off the deque:
 * no longer open, and freed (before that entry runs: its spawns can reuse
 * it). */
static inline void local_block_emptied(spool_scope_t *scope, spool__worker_t *w,
                                       spool__spawn_block_t *b)
{
    if (scope->open_block == b)
        scope->open_block = NULL;
    block_free(w, b);
}

/* A counted block, run by whichever worker w took it: its entries here,
 * newest first, until a thief asks w for work, another worker is idle or
 * the entries are coarse (deque.md, rule 4); then the rest is handed on
 * (pushed on w's deque and published) before the entry taken runs.  The
 * entries run here drop their counts at once at the end. */
void spool__scope_counted_execute(spool__job_t *base)
{
    spool__spawn_block_t *b = (spool__spawn_block_t *)base;
    spool__worker_t *w = spool__current_worker();
    spool_scope_t *scope = b->scope;
    bool entered = spool__scope_enter(w, scope);
    size_t done = 0;
    for (;;) {
        uint32_t n = --b->count;
        spool_scope_fn fn = b->entries[n].fn;
        void *arg = b->entries[n].arg;
        bool coarse = spool__pace_coarse(&w->pace); /* every entry counts */
        bool handed_on = n > 0 && spool__worker_hand_on(w, base, coarse);
        if (n == 0)
            block_free(w, b); /* before fn: its spawns can reuse it */
        spool__call_record_t rec;
        bool recorded = SPOOL__UNLIKELY(spool__worker_recording(w));
        if (recorded)
            spool__worker_record_begin(w, &rec);
        if (SPOOL__LIKELY(!spool__scope_dropping(scope)))
            fn(scope, arg);
        else
            spool__scope_drop(w, fn, arg);
        if (recorded)
            spool__worker_record_end(w, &rec, (void (*)(void))fn, arg);
        done++;
        if (n == 0 || handed_on) {
            if (entered)
                spool__worker_ctx_pop(w);
            /* Before the counts drop: the scope may end with them. */
            if (n == 0 && w != scope->local_worker)
                spool__demand_stolen_done(&w->demand, done);
            /* Each entry not yet run holds a count, so the scope outlives
             * the loop. */
            spool__count_latch_set_n(&scope->latch, done);
            return;
        }
    }
}

/* An entry's call by w, recorded as a job of its own while w records the
 * calls of the job it runs (worker.h). */
static SPOOL__NOINLINE void entry_call_recorded(spool__worker_t *w, spool_scope_t *scope,
                                                spool_scope_fn fn, void *arg)
{
    spool__call_record_t rec;
    spool__worker_record_begin(w, &rec);
    spool__scope_call(w, scope, fn, arg);
    spool__worker_record_end(w, &rec, (void (*)(void))fn, arg);
}

static SPOOL__ALWAYS_INLINE void entry_call(spool__worker_t *w, spool_scope_t *scope,
                                            spool_scope_fn fn, void *arg)
{
    if (SPOOL__UNLIKELY(spool__worker_recording(w))) {
        entry_call_recorded(w, scope, fn, arg);
        return;
    }
    spool__scope_call(w, scope, fn, arg);
}

/* The rest of spool__scope_local_execute, out of line so that its common
 * cases save no register: the block handed on the slow way (pushed back
 * where it was popped, so it stays the open block if it was, publishing if
 * need be), or freed to malloc; then fn(arg), taken from it already.  If
 * the push back fails (the deque could not grow) the rest runs here. */
static SPOOL__NOINLINE void local_block_rest(spool__spawn_block_t *b, spool_scope_fn fn, void *arg)
{
    spool_scope_t *scope = b->scope;
    spool__worker_t *w = scope->local_worker;
    if (b->count > 0 && SPOOL__LIKELY(spool__worker_push(w, &b->base))) {
        entry_call(w, scope, fn, arg);
        return;
    }
    if (scope->open_block == b)
        scope->open_block = NULL; /* off the deque while its entries run */
    for (;;) {
        uint32_t n = b->count;
        if (n == 0)
            block_free(w, b);
        entry_call(w, scope, fn, arg);
        if (n == 0)
            return;
        b->count = --n;
        scope->local--;
        fn = b->entries[n].fn;
        arg = b->entries[n].arg;
    }
}

/* Out of line for spool__scope_local_execute, which then saves no register:
 * the rest pushed back is published (another worker is idle), then fn. */
static SPOOL__NOINLINE void publish_then_run(spool__worker_t *w, spool_scope_t *scope,
                                             spool_scope_fn fn, void *arg)
{
    spool__worker_publish(w);
    entry_call(w, scope, fn, arg);
}

/* A local block, run by its scope's worker (a thief only ever gets a block
 * after spool__scope_block_published made it counted): as a counted block,
 * but each entry only leaves the local count, and the rest pushed back is
 * published only if another worker is idle or the entries are coarse (the
 * entry may run long).  The entry runs as a tail call; the common cases
 * (the last entry with a spare slot for the block, or a private push back
 * with nobody idle) call nothing else. */
void spool__scope_local_execute(spool__job_t *base)
{
    spool__spawn_block_t *b = (spool__spawn_block_t *)base;
    spool_scope_t *scope = b->scope;
    spool__worker_t *w = scope->local_worker;
    uint32_t n = --b->count;
    spool_scope_fn fn = b->entries[n].fn;
    void *arg = b->entries[n].arg;
    scope->local--;
    bool coarse = spool__pace_coarse(&w->pace); /* every entry counts */
    if (n == 0) {
        if (SPOOL__UNLIKELY(spool__block_cache_full(&w->blocks))) {
            local_block_rest(b, fn, arg);
            return;
        }
        local_block_emptied(scope, w, b); /* to the spares: no call */
    } else if (SPOOL__UNLIKELY(!spool__deque_push_private(&w->deque, base))) {
        local_block_rest(b, fn, arg);
        return;
    } else if (SPOOL__UNLIKELY(coarse || spool__worker_share_early(w))) {
        publish_then_run(w, scope, fn, arg);
        return;
    }
    entry_call(w, scope, fn, arg);
}

/* scope_complete's common step, spool__worker_pop and
 * spool__scope_local_execute in one when the owner's newest job is a
 * private local block of s: takes the newest entry and runs it, the block
 * left where it lies while entries remain (the push back at the same index
 * without the pop and the push), else popped and freed.  The fast pop's and
 * push's tests first (spool__deque_newest_private): a public block, a thief's
 * demand or an alert for the push goes the slow way.  False, with nothing
 * done, for any of those and for any other job (the caller pops).  Not used while
 * the timeline records (every entry is a job there). */
static SPOOL__ALWAYS_INLINE bool run_newest_entry_in_place(spool_scope_t *s,
                                                           spool__worker_t *owner)
{
    int64_t index;
    spool__spawn_block_t *b = s->open_block;
    /* The open block, while set, lies at open_index (as spawn_local
     * assumes): known without reading the slot and the block's kind, a
     * chain of dependent loads.  (open_index is read only while set.) */
    if (SPOOL__LIKELY(b != NULL && spool__deque_newest_private_at(&owner->deque, s->open_index))) {
        index = s->open_index;
    } else {
        if (!spool__deque_newest_private(&owner->deque, &index))
            return false;
        b = (spool__spawn_block_t *)spool__deque_window_job(&owner->deque, index);
        if (b->base.execute != spool__scope_local_execute || b->scope != s)
            return false;
    }
    uint32_t n = --b->count;
    spool_scope_fn fn = b->entries[n].fn;
    void *arg = b->entries[n].arg;
    s->local--;
    if (n == 0) {
        spool__deque_drop_newest(&owner->deque, index);
        local_block_emptied(s, owner, b);
    }
    SPOOL__STAT_INC(owner->stats.jobs_executed);
    spool__worker_share_before_entry(owner); /* rules 3 and 4, as the push back */
    entry_call(owner, s, fn, arg);
    return true;
}

size_t spool__scope_block_published(spool__job_t *base)
{
    spool__spawn_block_t *b = (spool__spawn_block_t *)base;
    if (base->execute == spool__scope_local_execute) {
        spool_scope_t *scope = b->scope;
        spool__scope_count_published(scope, b->count);
        base->execute = spool__scope_counted_execute;
        if (scope->open_block == b)
            scope->open_block = NULL; /* public now: no more entries */
    }
    return b->count;
}

static spool__context_t block_label(const spool__job_t *job)
{
    spool_scope_t *scope = ((const spool__spawn_block_t *)job)->scope;
    return (spool__context_t){scope, scope->region};
}

/* The entry that will run: the newest. */
static void block_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const spool__spawn_block_t *b = (const spool__spawn_block_t *)job;
    info->fn = spool__fn_bits((void (*)(void))b->entries[b->count - 1].fn);
    info->arg = (uint64_t)(uintptr_t)b->entries[b->count - 1].arg;
}

static const spool__job_kind_t kind_local_block = {.name = "local block",
                                                   .execute = spool__scope_local_execute,
                                                   .label = block_label,
                                                   .published = spool__scope_block_published,
                                                   .describe = block_describe,
                                                   .records_calls = true};
SPOOL__JOB_KIND_ROW(kind_local_block);
static const spool__job_kind_t kind_counted_block = {.name = "counted block",
                                                     .execute = spool__scope_counted_execute,
                                                     .label = block_label,
                                                     .published = spool__scope_block_published,
                                                     .describe = block_describe,
                                                     .records_calls = true};
SPOOL__JOB_KIND_ROW(kind_counted_block);

/* spawn_local's new block b, pushed on w's deque, the open one from then.
 * The common case (a private push) calls nothing, so saves no register. */
static SPOOL__NOINLINE int local_block_push_slow(spool_scope_t *scope, spool__worker_t *w,
                                                 spool__spawn_block_t *b)
{
    if (SPOOL__LIKELY(spool__worker_push(w, &b->base)))
        return 0;
    scope->open_block = NULL;
    scope->local--;
    spool_scope_fn fn = b->entries[0].fn;
    void *arg = b->entries[0].arg;
    block_free(w, b);
    return spool__scope_run_at_spawn(scope, w, fn, arg);
}

static inline int local_block_push(spool_scope_t *scope, spool__worker_t *w,
                                   spool__spawn_block_t *b, spool_scope_fn fn, void *arg)
{
    b->base.execute = spool__scope_local_execute;
    b->scope = scope;
    b->count = 1;
    b->entries[0].fn = fn;
    b->entries[0].arg = arg;
    scope->local++;
    /* Open before the push: a publication by the push closes it again. */
    scope->open_block = b;
    scope->open_index = atomic_load_explicit(&w->deque.bottom, memory_order_relaxed);
    if (SPOOL__LIKELY(spool__deque_push_private(&w->deque, &b->base)))
        return 0;
    return local_block_push_slow(scope, w, b);
}

static SPOOL__NOINLINE int local_block_refilled(spool_scope_t *scope, spool__worker_t *w,
                                                 spool_scope_fn fn, void *arg)
{
    spool__spawn_block_t *b = SPOOL__UNLIKELY(spool__test_spawn_alloc_fails())
                                  ? NULL
                                  : spool__block_refill(&w->blocks, &w->pool->blocks, sizeof *b);
    if (b == NULL)
        return spool__scope_run_at_spawn(scope, w, fn, arg);
    return local_block_push(scope, w, b, fn, arg);
}

/* A new local block, the open one from then. */
static SPOOL__ALWAYS_INLINE int new_local_block(spool_scope_t *scope, spool__worker_t *w,
                                                spool_scope_fn fn, void *arg)
{
    spool__spawn_block_t *b = spool__block_take_spare(&w->blocks, sizeof *b);
    if (SPOOL__UNLIKELY(b == NULL))
        return local_block_refilled(scope, w, fn, arg);
    return local_block_push(scope, w, b, fn, arg);
}

/* Out of line, so that spawn_local_block saves no register. */
static SPOOL__NOINLINE int publish_then_new_block(spool_scope_t *scope, spool__worker_t *w,
                                                  spool_scope_fn fn, void *arg)
{
    spool__worker_publish(w);
    return new_local_block(scope, w, fn, arg);
}

/* spawn_local's slow path: a new local block.  A thief's demand is served
 * first, as a push would (the publication closes the open block, if it was
 * still the newest job). */
static SPOOL__NOINLINE int spawn_local_block(spool_scope_t *scope, spool__worker_t *w,
                                             spool_scope_fn fn, void *arg)
{
    if (SPOOL__UNLIKELY(spool__deque_demanded(&w->deque)))
        return publish_then_new_block(scope, w, fn, arg);
    return new_local_block(scope, w, fn, arg);
}

/* A spawn by the scope's own worker w while the scope takes local spawns:
 * an entry in the open block if that is still w's newest job, not full, and
 * no thief asked for work; else a new local block.  The common case calls
 * nothing, so that spool_scope_spawn saves no register. */
static inline int spawn_local(spool_scope_t *scope, spool__worker_t *w, spool_scope_fn fn,
                              void *arg)
{
    spool__deque_t *d = &w->deque;
    spool__spawn_block_t *b = scope->open_block;
    if (b != NULL && b->count < SPOOL__SPAWN_BLOCK_CAP &&
        atomic_load_explicit(&d->bottom, memory_order_relaxed) == scope->open_index + 1 &&
        SPOOL__LIKELY(!spool__deque_demanded(d))) {
        b->entries[b->count].fn = fn;
        b->entries[b->count].arg = arg;
        b->count++;
        scope->local++;
        return 0;
    }
    return spawn_local_block(scope, w, fn, arg);
}

int spool_scope_spawn(spool_scope_t *scope, spool_scope_fn fn, void *arg)
{
    if (scope == NULL || fn == NULL)
        return EINVAL;
    if (spool__scope_dropping(scope))
        return ECANCELED;
    spool__worker_t *w = spool__current_worker();
    /* Only the scope's worker reads local_open while it can change: w ==
     * local_worker first.  A scope with no local worker (NULL, as w is
     * outside any pool) keeps it SPOOL__LOCAL_CLOSED from its init on, so
     * w needs no test of its own; a scope with one has a pool. */
    if (w == scope->local_worker) {
        if (scope->local_open == SPOOL__LOCAL_BLOCKS)
            return spawn_local(scope, w, fn, arg);
        if (scope->local_open == SPOOL__LOCAL_FIFO)
            return spool__scope_spawn_local_fifo(scope, w, fn, arg);
    }
    return spool__scope_spawn_counted(scope, w, fn, arg);
}
