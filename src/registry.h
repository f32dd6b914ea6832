/*
 * Internal: the registry (a pool), its workers and their main loop.
 */
#ifndef SPOOL_REGISTRY_H
#define SPOOL_REGISTRY_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

#include "atomics.h"
#include "deque.h"
#include "injector.h"
#include "job.h"
#include "job_cache.h"
#include "job_fifo.h"
#include "latch.h"
#include "sleep.h"
#include "trace.h"

typedef struct spool__worker {
    spool__deque_t deque;
    struct spool_pool *registry;
    unsigned index;
    uint64_t rng;                  /* xorshift state for victim choice */
    spool__core_latch_t terminate; /* set when the pool stops */
    spool__job_cache_t jobs;       /* recycled heap-job blocks */
    struct spool__spawn_block *spare_blocks; /* recycled spawn blocks (scope.c) */
    unsigned spare_block_count;
    spool__job_fifo_t fifo;        /* for detached spawn_fifo */
    /* Broadcasts for this worker (broadcast.c): pushed by any thread under
     * the pool's broadcast_lock, taken at the front by this worker alone. */
    spool__deque_t broadcasts;
    /* The victim of this worker's last steal: the owner of the join job it
     * runs, whom the job's latch may have to wake (join.c). */
    struct spool__worker *stolen_from;
    pthread_t thread;
#ifdef SPOOL_STATS
    struct { /* written by this worker only */
        spool__stat_t jobs_executed, steals, failed_steals, wakeups_sent;
    } stats;
#endif
} spool__worker_t;

/*
 * lifecycle: bit SPOOL__DESTROYING set once spool_pool_destroy began; the
 * other bits count the reasons to keep running: 1 for the pool handle, plus
 * one per job submitted from outside (install) or detached spawn not yet
 * finished.  The workers stop when the count reaches zero.
 */
#define SPOOL__DESTROYING (((size_t)-1 >> 1) + 1)
#define SPOOL__WORK_MASK (SPOOL__DESTROYING - 1)

struct spool_pool {
    spool__sleep_t sleep;
    spool__injector_t injector;
    spool__job_pool_t job_pool;
    spool__worker_t *workers;
    unsigned num_threads;
    /* Held while a broadcast is queued on every worker, so that concurrent
     * broadcasts reach all workers in one order. */
    pthread_mutex_t broadcast_lock;
    SPOOL__ALIGNED atomic_size_t lifecycle;
    /* References to this memory: the handle, plus cross-pool latch setters
     * that are waking one of our workers. */
    atomic_size_t refs;
    size_t stack_size;
    void (*start_handler)(void *ctx, unsigned index);
    void (*exit_handler)(void *ctx, unsigned index);
    void *handler_ctx;
    unsigned fork_generation; /* spool__fork_generation when created */
    spool__trace_state_t trace;
    bool trace_ready; /* trace initialised (registry_free) */
    char thread_name[16];
};

/* Counts the fork()s this process descends from (a pthread_atfork child
 * handler bumps it); a pool from an older generation has no threads here. */
extern atomic_uint spool__fork_generation;

/* ENOTRECOVERABLE if pool was created before a fork() in this process's
 * ancestry (its threads do not exist here), else 0. */
static inline int spool__registry_check_fork(const spool_pool_t *pool)
{
    /* Relaxed: only this process's own fork handler writes it, on the one
     * thread that exists at that point. */
    return pool->fork_generation ==
                   atomic_load_explicit(&spool__fork_generation, memory_order_relaxed)
               ? 0
               : ENOTRECOVERABLE;
}

/* The worker running on this thread, NULL outside any pool.  Initial-exec:
 * join reads it on every call, and the default model for a shared library
 * costs a call to __tls_get_addr. */
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

/* The parent's global pool in a forked child (see atfork_child). */
extern spool_pool_t *spool__abandoned_global_pool;

/* The global pool, started on first use; NULL if it cannot be started. */
spool_pool_t *spool__global_registry(void);

void spool__registry_ref(spool_pool_t *reg);
void spool__registry_unref(spool_pool_t *reg);

/* Counts one more job of the kinds lifecycle counts.  From outside the pool:
 * 0, or ECANCELED once destroy has begun.  From the pool's own jobs the
 * count is already positive, so the increment cannot fail. */
int spool__registry_add_work_external(spool_pool_t *reg);
static inline void spool__registry_add_work_internal(spool_pool_t *reg)
{
    /* Relaxed: the caller runs inside counted work, so the count cannot
     * reach zero concurrently. */
    atomic_fetch_add_explicit(&reg->lifecycle, 1, memory_order_relaxed);
}
/* One counted job has finished; the last one stops the workers. */
void spool__registry_work_done(spool_pool_t *reg);

/* Pushes job on the injector and wakes a worker if need be.  0 or ENOMEM. */
int spool__registry_inject(spool_pool_t *reg, spool__job_t *job);

/* Runs fn(arg) on a worker of reg and waits for it; the caller is not one of
 * reg's workers.  0, or ECANCELED if reg is being destroyed. */
int spool__registry_in_worker(spool_pool_t *reg, spool_fn fn, void *arg);

/* Publishes w's private jobs (w is the calling worker) and tells the
 * sleepers, as a push of that many jobs would. */
void spool__worker_publish(spool__worker_t *w);

/* scope.c: the execute functions of a local spawn block (uncounted) and of
 * a counted one, what publishing a block does (a local one's entries are
 * counted on its scope's latch; returns how many calls it holds), and the
 * release of a worker's spare blocks when its pool is freed. */
void spool__scope_local_execute(spool__job_t *job);
void spool__scope_counted_execute(spool__job_t *job);
size_t spool__scope_block_published(spool__job_t *job);
void spool__scope_free_spare_blocks(spool__worker_t *w);
/* scope.c: frees the spare spawn blocks that workers spilled to the pool. */
void spool__scope_free_pool_blocks(spool_pool_t *reg);

/* Is another worker of w's pool idle (searching or asleep)?  A relaxed look
 * at the sleep counters, a hint for publishing early (deque.md, rule 3):
 * the sleep protocol's guarantees do not rest on it, a stale answer only
 * publishes later (at the next demand, push or pop). */
static inline bool spool__worker_peers_idle(spool__worker_t *w)
{
    uint64_t c = atomic_load_explicit(&w->registry->sleep.counters, memory_order_relaxed);
    return spool__counters_inactive(c) != 0;
}

/* Owner only (w is the calling worker), before it runs one of its own jobs
 * that may take long (a job its wait loop popped, an entry of a spawn block):
 * should its private jobs be published first?  Yes if it has some and
 * another worker is idle: else they stay hidden for as long as that job
 * runs. */
static inline bool spool__worker_should_share(spool__worker_t *w)
{
    spool__deque_t *d = &w->deque;
    return spool__worker_peers_idle(w) &&
           d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed);
}

/* Does worker w, running a spawn block or FIFO ticket (several calls behind
 * one deque job), hand the rest on after each call?  Only while the pool's
 * timeline records: then every call is a job of its own there, as it would
 * be without blocks and tickets. */
static inline bool spool__worker_hand_on_each(spool__worker_t *w)
{
#if SPOOL__TRACE_ENABLED
    return spool__trace_current(&w->registry->trace) != NULL;
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
    spool__job_t *job = spool__deque_pop(&w->deque);
    if (SPOOL__UNLIKELY(spool__deque_demanded(&w->deque) || spool__worker_should_share(w)))
        spool__worker_publish(w);
    return job;
}

/* The holder w of several calls behind one job (a counted spawn block, a
 * published FIFO ticket; rest: that job, with calls left), before it runs
 * the call it took: hands the rest on if asked (each: the timeline records;
 * a thief's demand; an idle worker), pushed on w's deque and published.
 * True if handed on; the caller must not touch rest after that. */
static inline bool spool__worker_hand_on(spool__worker_t *w, spool__job_t *rest, bool each)
{
    if (!(each || spool__deque_demanded(&w->deque) || spool__worker_peers_idle(w)) ||
        !spool__worker_push(w, rest))
        return false;
    spool__worker_share_if_idle(w); /* if the push kept it private */
    return true;
}

/* job_fifo.c: spool__worker_push_fifo with a new ticket. */
int spool__worker_push_fifo_ticket(spool__worker_t *w, spool__job_fifo_t *f, spool__fifo_fn_t fn,
                                   void *arg, bool local);

/* Pushes the call fn(arg) on w's FIFO f and a reference to f on w's deque
 * (w is the calling worker, f's); local: a scope's local spawn (not counted
 * on its latch until published).  0, or ENOMEM with nothing pushed.  The
 * common case inline: a reference added to the open ticket (deque.md,
 * "FIFO tickets"). */
static inline int spool__worker_push_fifo(spool__worker_t *w, spool__job_fifo_t *f,
                                          spool__fifo_fn_t fn, void *arg, bool local)
{
    spool__deque_t *d = &w->deque;
    spool__heap_job_t *t = f->open_ticket;
    void (*kind)(spool__job_t *) =
        local ? spool__fifo_ticket_local_execute : spool__fifo_ticket_private_execute;
    if (t != NULL && t->ticket.count < SPOOL__FIFO_TICKET_CAP && t->ticket.base.execute == kind &&
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
    return spool__worker_push_fifo_ticket(w, f, fn, arg, local);
}

/* spawn.c: what a worker's own FIFO (detached spawn_fifo) runs. */
extern const spool__fifo_ops_t spool__spawn_fifo_ops;

/* The calling thread's job cache if it is a worker of reg, else NULL. */
static inline spool__job_cache_t *spool__job_cache_of(spool_pool_t *reg, spool__worker_t *w)
{
    return w != NULL && w->registry == reg ? &w->jobs : NULL;
}

/* The calling worker w's next local job: its own deque's newest, else its
 * oldest broadcast; NULL if neither has one.  *from: where it came from
 * (SPOOL__FROM_*), for spool__worker_run. */
spool__job_t *spool__worker_take_local(spool__worker_t *w, unsigned *from);
/* As take_local, then a job stolen from another worker, then one from the
 * injector; NULL if none was found. */
spool__job_t *spool__worker_find_work(spool__worker_t *w, unsigned *from);
/* Runs job, found by the calling worker w, on the timeline if it records. */
void spool__worker_run(spool__worker_t *w, spool__job_t *job, unsigned from);

/* Runs jobs (own, stolen, injected) until latch is set; sleeps when there
 * are none. */
void spool__worker_wait_until_cold(spool__worker_t *w, spool__core_latch_t *latch);

static inline void spool__worker_wait_until(spool__worker_t *w, spool__core_latch_t *latch)
{
    if (!spool__core_latch_probe(latch))
        spool__worker_wait_until_cold(w, latch);
}

void spool__worker_wait_recorded_cold(spool__worker_t *w, spool__core_latch_t *latch,
                                      void (*fn)(void *), void *arg);

/* As spool__worker_wait_until, recorded on the timeline as a wait for fn,
 * the stolen half of a join.  The probe stays inline, as there. */
static inline void spool__worker_wait_recorded(spool__worker_t *w, spool__core_latch_t *latch,
                                               void (*fn)(void *), void *arg)
{
    if (!spool__core_latch_probe(latch))
        spool__worker_wait_recorded_cold(w, latch, fn, arg);
}

#endif
