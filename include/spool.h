/*
 * spool: a work-stealing thread pool for C, after rayon-core.
 *
 * fork(): a child process may use spool_join, scopes, spawns and the global
 * pool (a new global pool starts there on first use).  Pools created before
 * the fork have no threads in the child: every call on them there returns
 * ENOTRECOVERABLE (and spool_pool_destroy frees nothing).
 *
 * Conventions
 *  - Every function returning int returns 0 on success or a positive errno
 *    value, as pthreads does.  Nothing sets errno.
 *  - A zeroed spool_config_t, or a NULL config, means "all defaults".
 *  - "Worker" below means a thread owned by a spool pool; "outside" means any
 *    other thread (main, threads of your own, workers of another pool are
 *    "outside" a pool they do not belong to).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_H
#define SPOOL_H

#include <stddef.h>

#define SPOOL_VERSION_MAJOR 0
#define SPOOL_VERSION_MINOR 1
#define SPOOL_VERSION_PATCH 0

#if defined(SPOOL_STATIC)
#define SPOOL_API
#elif defined(SPOOL_BUILDING) && defined(__GNUC__)
#define SPOOL_API __attribute__((visibility("default")))
#else
#define SPOOL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A pool of worker threads.  Opaque. */
typedef struct spool_pool spool_pool_t;
/* A scope: a group of spawned jobs waited for together.  Opaque. */
typedef struct spool_scope spool_scope_t;

typedef void (*spool_fn)(void *arg);
typedef void (*spool_scope_fn)(spool_scope_t *scope, void *arg);

typedef struct spool_config {
    /* 0: the SPOOL_NUM_THREADS environment variable if it is a positive
     * integer, else the number of online CPUs. */
    unsigned num_threads;
    /* Stack size of each worker in bytes; 0: the system default (on Linux
     * the stack rlimit, usually 8 MiB).  Each level of nested spool_join
     * costs about 210 bytes of worker stack (x86-64, gcc -O2; about 720
     * under AddressSanitizer), so the default holds a recursion 20,000
     * joins deep; tests/test_stack.c runs one on 64 MiB stacks, which is
     * enough for sanitized builds too. */
    size_t stack_size;
    /* NULL: "spool".  Workers are named "<name>-<index>" (truncated to the
     * 15 characters Linux keeps). */
    const char *thread_name;
    /* Called on each worker as it starts / right before it exits, with
     * handler_ctx and the worker's index.  Either may be NULL.  The exit
     * handler runs outside the pool (spool_current_thread_index() is -1);
     * neither should submit work to the pool being created or destroyed. */
    void (*start_handler)(void *ctx, unsigned index);
    void (*exit_handler)(void *ctx, unsigned index);
    void *handler_ctx;
} spool_config_t;

/* The most worker threads one pool can have (the width of the packed sleep
 * counters). */
#define SPOOL_MAX_THREADS 0xFFFFu

/*
 * spool_pool_create: starts a pool of worker threads.
 * Threads: any.
 * Returns: 0, with the pool in *out; EINVAL if out is NULL or
 * num_threads exceeds SPOOL_MAX_THREADS; EAGAIN, ENOMEM or EINVAL (the
 * error pthread_create or malloc gave, e.g. for an impossible stack_size)
 * when a thread or memory cannot be had.  On error nothing is left behind:
 * every thread already started has run its exit handler and been joined.
 */
SPOOL_API int spool_pool_create(const spool_config_t *config, spool_pool_t **out);

/*
 * spool_pool_destroy: waits until every job in the pool has finished
 * (installs in progress, detached spawns, and the jobs they spawn, even
 * while destroy waits), stops and joins every
 * worker (exit handlers run), and frees the pool.
 * Threads: any thread except the pool's own workers.
 * Returns: 0; EINVAL if pool is NULL; EDEADLK if called on one of the pool's
 * own workers (then nothing is done); ENOTRECOVERABLE in a child process
 * forked after the pool was created.
 */
SPOOL_API int spool_pool_destroy(spool_pool_t *pool);

/*
 * spool_pool_install: runs fn(arg) on a worker of pool and returns when it
 * has finished.  On a worker of the same pool fn runs inline.  On a worker
 * of another pool, that worker keeps running its own pool's jobs while it
 * waits, so pools installing into each other do not deadlock.
 * Threads: any.
 * Returns: 0; EINVAL if pool or fn is NULL; ECANCELED if pool is being
 * destroyed (fn is not run); ENOMEM if the job could not be queued;
 * ENOTRECOVERABLE in a child process forked after the pool was created.
 */
SPOOL_API int spool_pool_install(spool_pool_t *pool, spool_fn fn, void *arg);

/*
 * spool_pool_num_threads: the number of workers of pool.
 * Threads: any.
 * Returns: the number of workers; 0 if pool is NULL.
 */
SPOOL_API unsigned spool_pool_num_threads(const spool_pool_t *pool);

/*
 * spool_global_init: configures the global pool (used by spool_join and the
 * other free functions outside any pool) and starts it.
 * Threads: any; meant for before the global pool's first use.
 * Returns: 0; EALREADY if the global pool was already started (by an earlier
 * call or by first use); EINVAL, EAGAIN or ENOMEM as spool_pool_create.
 */
SPOOL_API int spool_global_init(const spool_config_t *config);

/*
 * spool_join: runs a(arg_a) and b(arg_b), potentially in parallel, and
 * returns when both have finished.  On a worker, b is offered to thieves and
 * a runs on the caller; while waiting for a stolen b the caller runs other
 * jobs.  Outside any pool the pair runs in the global pool (started on first
 * use) while the caller blocks; if the global pool cannot be started, both
 * run on the caller, a first.
 * Threads: any.
 * Returns: nothing.  A NULL a or b is a programming error: spool_join prints
 * one line naming itself to stderr and aborts.
 */
SPOOL_API void spool_join(spool_fn a, void *arg_a, spool_fn b, void *arg_b);

/*
 * spool_scope: runs body(scope, arg) on a worker of the current pool (the
 * global pool from outside any pool; on the caller itself if that cannot be
 * started) and returns when body and every job spawned into the scope,
 * transitively, have finished.  Jobs spawned by a worker run in per-thread
 * LIFO order (the last spawned first) unless stolen.  While it waits, the
 * worker runs other jobs on its own stack.
 * Threads: any.
 * Returns: nothing.  A NULL body is a programming error: it prints one line
 * naming the function to stderr and aborts.
 */
SPOOL_API void spool_scope(spool_scope_fn body, void *arg);

/*
 * spool_scope_fifo: as spool_scope, but the jobs spawned by each worker run
 * in per-thread FIFO order (the first spawned first) unless stolen.
 * Threads: any.
 * Returns: nothing; a NULL body aborts as in spool_scope.
 */
SPOOL_API void spool_scope_fifo(spool_scope_fn body, void *arg);

/*
 * spool_in_place_scope / spool_in_place_scope_fifo: as spool_scope(_fifo),
 * but body runs on the calling thread itself; only spawned jobs go to the
 * pool (the current pool, or the global pool from outside).  The body may
 * block until its own spawns have run.
 * Threads: any.
 * Returns: nothing; a NULL body aborts as in spool_scope.
 */
SPOOL_API void spool_in_place_scope(spool_scope_fn body, void *arg);
SPOOL_API void spool_in_place_scope_fifo(spool_scope_fn body, void *arg);

/*
 * spool_scope_spawn: spawns fn(scope, arg) into scope, which will not end
 * before it has run.  In a FIFO scope it is queued FIFO, else LIFO.
 * Threads: the scope's body or a job running in the scope (on any thread);
 * never after the scope has ended.
 * Returns: 0; EINVAL if scope or fn is NULL; ENOMEM if no memory could be had
 * for the job (then nothing was spawned and the scope still completes).
 */
SPOOL_API int spool_scope_spawn(spool_scope_t *scope, spool_scope_fn fn, void *arg);

/*
 * spool_spawn / spool_spawn_fifo: runs fn(arg) later, detached, in the
 * current pool (the global pool from outside any pool; on the caller at once
 * if that cannot be started), in per-thread LIFO / FIFO order.  The pool's
 * spool_pool_destroy waits for it.
 * Threads: any.
 * Returns: 0; EINVAL if fn is NULL; ENOMEM if no memory could be had (nothing
 * was spawned).
 */
SPOOL_API int spool_spawn(spool_fn fn, void *arg);
SPOOL_API int spool_spawn_fifo(spool_fn fn, void *arg);

/*
 * spool_pool_spawn / spool_pool_spawn_fifo: runs fn(arg) later, detached, in
 * pool.  From the pool's own workers the job is pushed on the worker's deque
 * (LIFO) or FIFO; from elsewhere it is queued for the pool.
 * Threads: any.
 * Returns: 0; EINVAL if pool or fn is NULL; ECANCELED if the call comes from
 * outside the pool after spool_pool_destroy has begun (jobs of the pool may
 * still spawn; destroy runs them); ENOMEM if no memory could be had (nothing
 * was spawned); ENOTRECOVERABLE in a child process forked after the pool was
 * created.
 */
SPOOL_API int spool_pool_spawn(spool_pool_t *pool, spool_fn fn, void *arg);
SPOOL_API int spool_pool_spawn_fifo(spool_pool_t *pool, spool_fn fn, void *arg);

/*
 * spool_current_thread_index: the calling worker's index in its pool.
 * Threads: any.
 * Returns: 0 .. num_threads-1 on a worker; -1 on a thread outside any pool.
 */
SPOOL_API int spool_current_thread_index(void);

/*
 * spool_current_num_threads: the size of the calling worker's pool, or
 * outside any pool of the global pool (started if need be).
 * Threads: any.
 * Returns: the number of workers; 1 if the global pool cannot be started.
 */
SPOOL_API unsigned spool_current_num_threads(void);

/* Per-worker counters, kept when spool is built with -DSPOOL_STATS=ON. */
typedef struct spool_worker_stats {
    unsigned long long jobs_executed;    /* jobs taken from a deque or the injector and run */
    unsigned long long steals;           /* jobs stolen from other workers */
    unsigned long long failed_steals;    /* steal attempts that found nothing or lost a race */
    unsigned long long sleeps;           /* times the worker blocked on its condvar */
    unsigned long long wakeups_received; /* times another thread woke it */
    unsigned long long wakeups_sent;     /* times it woke another worker */
} spool_worker_stats_t;

/*
 * spool_pool_stats: reads worker index's counters (a snapshot: the worker
 * may be counting while it is read).
 * Threads: any.
 * Returns: 0; EINVAL if pool or out is NULL or index >= the pool's size;
 * ENOTSUP if spool was built without SPOOL_STATS.
 */
SPOOL_API int spool_pool_stats(const spool_pool_t *pool, unsigned index, spool_worker_stats_t *out);

/*
 * spool_version: the version of the library actually linked (which may
 * differ from the SPOOL_VERSION_* macros of the header compiled against).
 * Threads: any.
 * Returns: MAJOR * 10000 + MINOR * 100 + PATCH.
 */
SPOOL_API unsigned spool_version(void);

/*
 * spool_strerror: describes an error code returned by spool.
 * Threads: any.
 * Returns: a static string; "unknown error" for codes spool never returns.
 */
SPOOL_API const char *spool_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SPOOL_H */
