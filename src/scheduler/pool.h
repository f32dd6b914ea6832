/*
 * Internal: a pool (rayon-core's registry): its workers, its queue of work
 * from outside, its sleep state, its job memory, and the count of work that
 * keeps it running.  pool.c creates, runs from outside and destroys pools;
 * worker.c is what each of its threads does.
 */
#ifndef SPOOL_POOL_H
#define SPOOL_POOL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

#include "platform/atomics.h"
#include "memory/block_cache.h"
#include "queue/injector.h"
#include "job/job.h"
#include "memory/job_cache.h"
#include "sleep/sleep.h"
#include "trace/trace.h"

struct spool__worker;

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
    spool__job_pool_t job_pool;     /* heap jobs (job_cache.h) */
    spool__block_depot_t blocks;    /* spare spawn blocks (block_cache.h) */
    spool__block_depot_t task_blocks; /* spare tasks (task.c) */
    struct spool__worker *workers; /* num_threads + 1: the last is the caller slot's */
    unsigned num_threads;          /* workers (threads of the pool's own) */
    /* Indices a job may run on: the workers, and num_threads for the
     * caller slot if it is lent (caller.h). */
    unsigned num_slots;
    SPOOL__ALIGNED atomic_int caller_taken; /* 1 while a caller holds the slot */
    /* The job a worker's take returns while the free slot has broadcasts
     * queued (caller.h's spool__caller_service), if the slot is lent. */
    spool__job_t *slot_service;
    /* Held while a broadcast is queued on every worker, so that concurrent
     * broadcasts reach all workers in one order. */
    pthread_mutex_t broadcast_lock;
    /* The caller slot's server (slot_server.c): a thread that serves the
     * slot's broadcasts while nobody holds it, started by the first
     * broadcast.  The fields below are under broadcast_lock. */
    pthread_cond_t slot_cond;
    pthread_t slot_thread;
    uint64_t slot_posted; /* broadcasts queued for the slot so far */
    /* The server runs: the free slot's broadcasts are its, no worker's
     * (caller.md, H6).  Written under the lock; read relaxed as a hint. */
    atomic_bool slot_started;
    bool slot_stop;
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
    bool trace_ready; /* trace initialised (pool_free) */
    char thread_name[16];
    int *cpus; /* worker i runs on cpus[i % num_cpus]; NULL: not pinned */
    unsigned num_cpus;
};

/* Counts the fork()s this process descends from (global.c's pthread_atfork
 * child handler bumps it); a pool from an older generation has no threads
 * here. */
extern atomic_uint spool__fork_generation;

/* ENOTRECOVERABLE if pool was created before a fork() in this process's
 * ancestry (its threads do not exist here), else 0. */
static inline int spool__pool_check_fork(const spool_pool_t *pool)
{
    /* Relaxed: only this process's own fork handler writes it, on the one
     * thread that exists at that point. */
    return pool->fork_generation ==
                   atomic_load_explicit(&spool__fork_generation, memory_order_relaxed)
               ? 0
               : ENOTRECOVERABLE;
}

/* spool_pool_create; lend_slot: outside callers may take part in the
 * pool's work (caller.h; the global pool). */
int spool__pool_create(const spool_config_t *config, bool lend_slot, spool_pool_t **out);
/* The next pool the calling thread creates counts n threads beside its
 * workers when it decides whether it has more threads than CPUs (its
 * searchers then neither spin nor keep looking: sleep.c). */
void spool__pool_creator_runs(unsigned n);
/* The global pool of a first use, from the environment alone: a
 * SPOOL_PLACES that does not parse is reported (one line on stderr) and
 * ignored, so that a mistake there does not leave the program without a
 * pool. */
int spool__pool_create_from_env(spool_pool_t **out);

/* Registers the fork handlers (global.c), once per process. */
void spool__register_atfork(void);

void spool__pool_ref(spool_pool_t *pool);
void spool__pool_unref(spool_pool_t *pool);

/* Counts one more job of the kinds lifecycle counts.  From outside the pool:
 * 0, or ECANCELED once destroy has begun.  From the pool's own jobs the
 * count is already positive, so the increment cannot fail. */
int spool__pool_add_work_external(spool_pool_t *pool);
static inline void spool__pool_add_work_internal(spool_pool_t *pool)
{
    /* Relaxed: the caller runs inside counted work, so the count cannot
     * reach zero concurrently. */
    atomic_fetch_add_explicit(&pool->lifecycle, 1, memory_order_relaxed);
    SPOOL__COUNT(rmw_counts);
}
/* One counted job has finished; the last one stops the workers. */
void spool__pool_work_done(spool_pool_t *pool);

/* Pushes job on the injector and wakes a worker if need be; *woke, unless
 * woke is NULL, says whether it woke one.  0 or ENOMEM. */
int spool__pool_inject(spool_pool_t *pool, spool__job_t *job, bool *woke);

/* Runs fn(arg) on a worker of pool and waits for it; the caller is not one
 * of pool's workers.  0, or ECANCELED if pool is being destroyed. */
int spool__pool_run_in_worker(spool_pool_t *pool, spool_fn fn, void *arg);
/* As spool__pool_run_in_worker, for a root of the global pool (a join, loop,
 * scope or isolation from outside): the caller runs fn itself as the pool's
 * caller if it is outside any pool and the slot is free (caller.h). */
int spool__pool_run_root(spool_pool_t *pool, spool_fn fn, void *arg);

/* The pool's timeline (pool_trace.c): at creation (reads SPOOL_TRACE; 0 or
 * an errno value), at destroy once the workers are joined (writes
 * SPOOL_TRACE's file), and freeing. */
int spool__trace_init(spool_pool_t *pool);
void spool__trace_finish(spool_pool_t *pool);
void spool__trace_destroy(spool_pool_t *pool);

/* Fault injection for the tests (the others are in test_hooks.h): makes
 * the nth (1-based) step of pool creation from now fail as if out of
 * memory, each resource pool_new sets up being a step; nth = 0 disarms.
 * Returns how many steps were counted since the last call. */
int spool__test_fail_pool_step(int nth);

#endif
