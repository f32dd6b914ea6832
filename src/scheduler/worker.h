/*
 * Internal: a worker, one thread of a pool, and what it does (worker.c):
 * its deque's owner operations with the publication rules of deque.md, the
 * search for work (own deque, broadcasts, stealing, the injector), the wait
 * loop that runs jobs until a latch is set, and its main loop.
 */
#ifndef SPOOL_WORKER_H
#define SPOOL_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "memory/block_cache.h"
#include "job/context.h"
#include "deque/deque.h"
#include "job/job.h"
#include "memory/job_cache.h"
#include "memory/copy_arena.h"
#include "deque/demand.h"
#include "scheduler/frame_jobs.h"
#include "scheduler/job_fifo.h"
#include "scheduler/lend.h"
#include "sleep/latch.h"
#include "deque/pace.h"
#include "scheduler/caller_slot.h"
#include "scheduler/pool.h"
#include "sleep/sleep.h"
#include "platform/stats.h"
#include "trace/trace.h"
#include "scheduler/wait.h"

typedef struct spool__worker {
    spool__deque_t deque;
    spool_pool_t *pool;
    unsigned index;
    uint64_t rng;                  /* xorshift state for victim choice */
    spool__core_latch_t terminate; /* set when the pool stops */
    spool__job_cache_t jobs;       /* recycled heap-job blocks */
    spool__block_cache_t blocks;   /* recycled spawn blocks */
    spool__block_cache_t task_blocks; /* recycled tasks */
    spool__copy_arena_t copies;    /* copying spawns' copies */
    spool__job_fifo_t fifo;        /* for detached spawn_fifo */
    /* Broadcasts for this worker (broadcast.c): pushed by any thread under
     * the pool's broadcast_lock, taken at the front by this worker alone. */
    spool__deque_t broadcasts;
    /* The victim of this worker's last steal: the owner of the join job it
     * runs, whom the job's latch may have to wake (join.c). */
    struct spool__worker *stolen_from;
    /* Its last steal, for a demand that waits (demand.h). */
    spool__demand_t demand;
    /* The pace of the entries it runs (pace.h; deque.md, rule 4). */
    spool__pace_t pace;
    /* Its latest loops (loop/loop.c's memo, allocated there on its first
     * loop, freed with the worker): NULL until then. */
    struct spool__loop_memo *loops;
    /* The contexts (scope, isolation region) of the deque's jobs and of the
     * code running here (context.h). */
    spool__ctx_stack_t ctx;
    /* Its typed tasks' frame deque, made on its first typed task (NULL
     * until then; read by thieves), the contexts of its frames (entries at
     * frame indices), and the frame it stole last, as its take returns it
     * (frame_jobs.h). */
    _Atomic(spool__frames_t *) frames;
    spool__ctx_stack_t frame_ctx;
    spool__frame_job_t frame_job;
    /* Scope jobs this worker dropped because their scope was cancelled. */
    atomic_ulong jobs_dropped; /* written by this worker only */
    /* Scope spawns it ran at once, having no memory for a job. */
    atomic_ulong jobs_run_at_spawn; /* written by this worker only */
    /* The timeline's depth of the job this worker dropped last (0: none),
     * so that the record of that job, and not of one it nests in, says so. */
    unsigned drop_level;
    /* While it runs a job that records its own calls on the timeline (a
     * spawn block, a ticket: job.h), between those calls: the trace to
     * record them in (NULL: none), and where that job came from, for the
     * first call's record (wait.c; spool__worker_record_begin). */
    spool__trace_t *recording;
    unsigned trace_from;
    /* Its dock (lend.h): SPOOL__DOCK_IDLE while it looks for work at its top
     * level, a lend record once a layer above claimed it, else BUSY; the
     * caller slot's stays BUSY. */
    _Atomic(uintptr_t) dock;
    /* When its last lend returned asking it to linger (spool__ticks; 0:
     * none since), and how long it lingers after one: learned from how
     * soon its next claim came (lend.md, L6).  This worker's only. */
    uint64_t lend_end;
    uint64_t linger;
    /* The caller slot's worker: its holder entered a context on arrival
     * (caller.c), to leave when it goes. */
    bool caller_entered;
    /* Its early publication (deque.md, rule 3) came back to it untaken: it
     * publishes for idle peers again only once a thief asks (rule 2). */
    bool share_quiet;
    pthread_t thread;
#ifdef SPOOL_STATS
    spool__stats_t stats; /* written by this worker only (stats.h) */
#endif
} spool__worker_t;

/* The worker running on this thread, NULL outside any pool.  Initial-exec:
 * join reads it on every call, and the default model for a shared library
 * costs a call to __tls_get_addr (README.md, "ABI", says what it means for
 * dlopen). */
#if defined(__GNUC__)
#define SPOOL__TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define SPOOL__TLS_MODEL
#endif
extern _Thread_local spool__worker_t *spool__tls_worker SPOOL__TLS_MODEL;

static inline spool__worker_t *spool__current_worker(void)
{
    return spool__tls_worker;
}

/* The calling thread becomes worker w / stops being one (both TLS
 * pointers: this one and spool_inline.h's). */
void spool__worker_enter(spool__worker_t *w);
void spool__worker_leave(void);

/* Sets up / tears down w's own parts, as the index-th worker of pool.
 * 0 or an errno value (then nothing is left to tear down). */
int spool__worker_init(spool__worker_t *w, spool_pool_t *pool, unsigned index);
void spool__worker_destroy(spool__worker_t *w);

/* The thread function of a worker (arg: the spool__worker_t). */
void *spool__worker_main(void *arg);
/* Names the calling thread, a thread of pool's, after its index there. */
void spool__worker_name_thread(const spool_pool_t *pool, unsigned index);

/* Publishes w's private jobs (w is the calling worker) and tells the
 * sleepers, as a push of that many jobs would. */
void spool__worker_publish(spool__worker_t *w);
/* n jobs (or frames) of w's were published, into a deque that was empty
 * if was_empty, among them one of an isolation region if regional: wakes
 * sleepers as a push of n would, and the region's isolated sleepers. */
void spool__worker_posted(spool__worker_t *w, int64_t n, bool was_empty, bool regional);

/* Does pool's caller slot (caller.md) need a worker to serve it: has it
 * broadcasts queued while nobody holds it, and no server (whose runs they
 * are while it runs, H6)?  A relaxed look, for a worker's take and an
 * isolated sleeper's check; the sleepers' final check reads it after
 * their SleepFence (wait.md).  A stale "no server" costs one look under
 * the lock (the service's, caller.c). */
static inline bool spool__slot_needs_serving(spool_pool_t *pool)
{
    if (pool->slot_service == NULL) /* the slot is not lent */
        return false;
    /* Relaxed: hints; the sleepers' final check orders them (wait.md). */
    return spool__slot_has_free_runs(&pool->caller_taken,
                                     &pool->workers[pool->num_threads].broadcasts) &&
           !atomic_load_explicit(&pool->slot_started, memory_order_relaxed);
}

/* Is another worker of w's pool idle (searching or asleep)?  A relaxed look
 * at the sleep counters, a hint for publishing early (deque.md, rule 3):
 * the sleep protocol's guarantees do not rest on it, a stale answer only
 * publishes later (at the next demand, push or pop). */
static inline bool spool__worker_peers_idle(spool__worker_t *w)
{
    uint64_t c = atomic_load_explicit(&w->pool->sleep.counters, memory_order_relaxed);
    return spool__counters_inactive(c) != 0;
}

/* Rule 3's test (w is the calling worker): publish early, before work that
 * may take long?  Yes if another worker is idle, unless the last early
 * publication came back to w untaken (share_quiet): then the idle workers
 * do not keep up with jobs this fine, and a thief that wants one asks. */
static inline bool spool__worker_share_early(spool__worker_t *w)
{
    return !w->share_quiet && spool__worker_peers_idle(w);
}

/* Owner only (w is the calling worker), before it runs one of its own jobs
 * that may take long (a job its wait loop popped, an entry of a spawn block):
 * should its private jobs be published first?  Yes if it has some and
 * another worker is idle (rule 3), or, coarse (spool__pace_coarse), the
 * entries it runs are (rule 4): else they stay hidden for as long as that
 * job runs. */
static inline bool spool__worker_should_share_if(spool__worker_t *w, bool coarse)
{
    spool__deque_t *d = &w->deque;
    return (coarse || spool__worker_share_early(w)) &&
           d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed);
}

static inline bool spool__worker_should_share(spool__worker_t *w)
{
    return spool__worker_should_share_if(w, false);
}

/* Before w runs an entry of a spawn block or a call of a FIFO ticket whose
 * rest lies on its deque: rules 3 and 4 (deque.md).  Counts the entry in
 * w's pace. */
static inline void spool__worker_share_before_entry(spool__worker_t *w)
{
    if (SPOOL__UNLIKELY(spool__worker_should_share_if(w, spool__pace_coarse(&w->pace))))
        spool__worker_publish(w);
}

/* A call of a job that records its calls (a spawn block's entry, a FIFO
 * ticket's call: job.h), made by w while w->recording is set: recorded as
 * a job of its own, as if each call had been a job, so that the timeline
 * shows every call and decides nothing.  The first call of a job says
 * where the job came from, the later ones that they were w's own; during
 * the call nothing records for the job (its own jobs record themselves). */
typedef struct spool__call_record {
    spool__trace_t *trace;
    uint64_t t0;
    unsigned depth, saved_drop;
} spool__call_record_t;

static inline void spool__worker_record_begin(spool__worker_t *w, spool__call_record_t *r)
{
#if SPOOL__TRACE_ENABLED
    r->trace = w->recording;
    w->recording = NULL;
    spool__trace_ring_t *ring = &r->trace->rings[w->index];
    r->depth = ring->depth++;
    r->saved_drop = w->drop_level;
    w->drop_level = 0;
    r->t0 = spool__trace_now();
#else
    (void)w;
    (void)r;
#endif
}

static inline void spool__worker_record_end(spool__worker_t *w, spool__call_record_t *r,
                                            void (*fn)(void), void *arg)
{
#if SPOOL__TRACE_ENABLED
    uint64_t t1 = spool__trace_now();
    spool__trace_ring_t *ring = &r->trace->rings[w->index];
    ring->depth = r->depth;
    unsigned kind = w->drop_level == r->depth + 1 ? SPOOL__FROM_DROPPED : 0;
    w->drop_level = r->saved_drop;
    unsigned from = w->trace_from;
    w->trace_from = SPOOL__FROM_OWN;
    w->recording = r->trace;
    spool__trace_put(ring, r->trace->capacity, r->t0, t1, spool__fn_bits(fn),
                     (uint64_t)(uintptr_t)arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, (from & 15u) | kind, from >> 8, r->depth));
#else
    (void)w;
    (void)r;
    (void)fn;
    (void)arg;
#endif
}

/* Is w to record the calls it makes for the job it runs? */
static inline bool spool__worker_recording(const spool__worker_t *w)
{
#if SPOOL__TRACE_ENABLED
    return w->recording != NULL;
#else
    (void)w;
    return false;
#endif
}

/* Rule 3 for a caller about to run work that may take long (a loop's leaf):
 * w is the calling worker or NULL (then nothing to do). */
static inline void spool__worker_share_if_idle(spool__worker_t *w)
{
    if (w != NULL && SPOOL__UNLIKELY(spool__worker_should_share(w)))
        spool__worker_publish(w);
}

/* Leaves the context w entered last (w is the calling worker). */
static inline void spool__worker_ctx_pop(spool__worker_t *w)
{
    spool__ctx_pop(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed));
}

/* Before running, on w, a job made in context x that lies on no deque (an
 * install, a broadcast): enters x, except that an isolated waiter keeps its
 * own region (isolate.md).  True if a context was entered (pop it
 * afterwards). */
static inline bool spool__worker_enter_made_in(spool__worker_t *w, spool__context_t x)
{
    if (w->ctx.top.region != 0)
        x.region = w->ctx.top.region;
    return spool__ctx_enter(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            x);
}

/* Before running work that belongs to no scope (a detached spawn, a task)
 * on w: as made in no context, so that it leaves the current scope and
 * keeps the isolation region. */
static inline bool spool__worker_enter_unscoped(spool__worker_t *w)
{
    return w != NULL && spool__worker_enter_made_in(w, (spool__context_t){NULL, 0});
}

/* Pushes job on w's own deque (w is the calling worker).  False if the deque
 * could not grow.  The job stays private (no fence, no look at the sleep
 * counters) unless a thief asked for work or no public job is left. */
static inline bool spool__worker_push(spool__worker_t *w, spool__job_t *job)
{
    if (!spool__deque_push(&w->deque, job))
        return false;
    if (SPOOL__UNLIKELY(spool__deque_wants_publish(&w->deque)))
        spool__worker_publish(w);
    return true;
}

/* Pops w's newest own job (w is the calling worker) to run it, or NULL;
 * publishes the rest if a thief asked meanwhile or another worker is idle
 * (deque.md, rules 2 and 3). */
static inline spool__job_t *spool__worker_pop(spool__worker_t *w)
{
    spool__deque_t *d = &w->deque;
    bool had_private = d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed);
    spool__job_t *job = spool__deque_pop(d);
    if (!had_private && job != NULL)
        w->share_quiet = true; /* a public job came back: nobody took it */
    if (SPOOL__UNLIKELY(spool__deque_demanded(&w->deque) || spool__worker_should_share(w)))
        spool__worker_publish(w);
    return job;
}

/* The holder w of several calls behind one job (a counted spawn block, a
 * published FIFO ticket; rest: that job, with calls left), before it runs
 * the call it took: hands the rest on if asked (coarse: w's entries are,
 * spool__pace_coarse; a thief's demand; an idle worker), pushed on w's
 * deque and published.  True if handed on; the caller must not touch rest
 * after that. */
static inline bool spool__worker_hand_on(spool__worker_t *w, spool__job_t *rest, bool coarse)
{
    if (!(coarse || spool__deque_demanded(&w->deque) || spool__worker_share_early(w)) ||
        !spool__worker_push(w, rest))
        return false;
    if (spool__worker_should_share_if(w, coarse))
        spool__worker_publish(w); /* if the push kept it private */
    return true;
}

/* The calling thread's job cache if it is a worker of pool, else NULL. */
static inline spool__job_cache_t *spool__job_cache_of(spool_pool_t *pool, spool__worker_t *w)
{
    return w != NULL && w->pool == pool ? &w->jobs : NULL;
}

/* Pushes the call fn(arg) on w's FIFO f and a reference to f on w's deque
 * (w is the calling worker, f's); local: a scope's local spawn (not counted
 * on its latch until published).  0, or ENOMEM with nothing pushed.  The
 * common case inline: a reference added to the open ticket (deque.md,
 * "FIFO tickets"); else job_fifo.c pushes a new ticket. */
static inline int spool__worker_push_fifo(spool__worker_t *w, spool__job_fifo_t *f,
                                          spool__fifo_fn_t fn, void *arg, bool local)
{
    spool__deque_t *d = &w->deque;
    spool__heap_job_t *t = f->open_ticket;
    if (t != NULL && t->ticket.count < SPOOL__FIFO_TICKET_CAP && spool__fifo_ticket_is_open(t, local) &&
        atomic_load_explicit(&d->bottom, memory_order_relaxed) == f->open_index + 1 &&
        SPOOL__LIKELY(!spool__deque_demanded(d))) {
        /* Another reference in the open ticket, which is private and of
         * the same kind (local or counted): no push, so demand is tested
         * here as a push would (deque.md, rule 2). */
        if (!spool__fifo_queue_push(&f->queue, fn, arg))
            return ENOMEM;
        t->ticket.count++;
        return 0;
    }
    return spool__job_fifo_push_ticket(w, f, fn, arg, local);
}

/* ---- latches owned by a worker (sleep/latch.h) -------------------------------- */

/* A spin latch owned by w: its setter wakes w through w's pool's sleep
 * state (held by a cross setter through the pool's keeper). */
static inline void spool__worker_latch_init(spool__spin_latch_t *l, spool__worker_t *w, bool cross)
{
    spool__spin_latch_init(l, &w->pool->sleep, w->index, cross);
}

/* A count latch owned by w, or by a thread outside any pool (w NULL: a
 * lock latch).  0 or an errno value (the lock latch's mutex). */
static inline int spool__worker_count_latch_init(spool__count_latch_t *l, spool__worker_t *w,
                                                 bool cross)
{
    return w == NULL ? spool__count_latch_init(l, NULL, 0, cross)
                     : spool__count_latch_init(l, &w->pool->sleep, w->index, cross);
}

void spool__count_latch_wait_cold(spool__count_latch_t *l, spool__worker_t *owner);
/* Owner: drops its own count and waits until the counter reaches zero,
 * running other jobs meanwhile if the owner is a worker. */
static inline void spool__count_latch_wait(spool__count_latch_t *l, spool__worker_t *owner)
{
    /* Only the owner's count left: no counted job is pending or running,
     * and none can be made (only a count holder adds counts), so there is
     * nothing to drop, set or wait for (two locked instructions saved for
     * a scope whose spawns all stayed local).  Acquire pairs with the acq_rel
     * decrement that left 1 and, through its release sequence, every
     * earlier one: the jobs' effects are visible. */
    if (atomic_load_explicit(&l->counter, memory_order_acquire) == 1)
        return;
    spool__count_latch_wait_cold(l, owner);
}

#endif
