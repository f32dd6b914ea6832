/*
 * spool: a work-stealing thread pool for C, after rayon-core.
 *
 * The whole C API is this one header (as uv.h and zstd.h are), grouped by
 * concept; most of its length is the contract of each call, which belongs
 * beside its declaration.  spool_inline.h adds the inlined fork and join,
 * spool.hpp the C++ wrappers.
 *
 * fork(): a child process may use spool_join, scopes, spawns and the global
 * pool (a new global pool starts there on first use).  Pools created before
 * the fork have no threads in the child: every call on them there returns
 * ENOTRECOVERABLE (and spool_pool_destroy frees nothing).
 *
 * Languages: this header is C99, C11, C17 and C++11 or later (C++ sees the
 * same declarations, with C linkage); tests/header_modes.sh compiles it
 * with -Wall -Wextra -Wpedantic -Werror under gcc and clang in each of those
 * modes.  C89 is not supported.  The library itself is C11.
 *
 * Conventions
 *  - Every function returning int returns 0 on success or a positive errno
 *    value, as pthreads does, except these, whose int is a value:
 *    spool_current_thread_index (an index, -1 outside any pool),
 *    spool_current_thread_has_pending_tasks (1 or 0, -1 outside any pool)
 *    and spool_sync_inline (spool_inline.h: 1 or 0).  Functions returning
 *    unsigned, size_t or spool_yield_t return a count, a version or a
 *    result as documented.  Nothing sets errno.
 *  - A programming error (a NULL function where one is required) prints one
 *    line naming the function to stderr and aborts; bad values return
 *    EINVAL.
 *  - A zeroed spool_config_t or spool_for_opts_t, or a NULL pointer to
 *    one, means "all defaults".
 *  - Names: public ones begin with spool_ or SPOOL_; spool__ names are
 *    internal.  A type spool_x_t is struct spool_x (or enum spool_x),
 *    except spool_scope_t, struct spool_scope_s: C++ would let the
 *    function spool_scope hide a struct of that name.
 *  - Structs that grow: spool_config_t, which the caller fills and passes
 *    in, carries its own size (set by
 *    SPOOL_CONFIG_INIT; 0 means the first layout); spool_worker_stats_t,
 *    which the library fills, is sized by the caller's argument, as
 *    getsockopt's buffer is.  Either way the library reads or writes no
 *    more than the caller's size.
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
#define SPOOL_VERSION_MINOR 5
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
typedef struct spool_scope_s spool_scope_t;

typedef void (*spool_fn)(void *arg);
typedef void (*spool_scope_fn)(spool_scope_t *scope, void *arg);

typedef struct spool_config {
    /* sizeof(spool_config_t) as the caller was compiled with; set it with
     * SPOOL_CONFIG_INIT.  The library reads no more than that, so a program
     * built against an older spool.h keeps working with a newer library.
     * 0 (a zeroed or designated-initialised config) means the fields up to
     * handler_ctx, all there are in 0.2.  A caller whose config is larger
     * than the library knows gets EINVAL if any unknown field is non-zero. */
    size_t size;
    /* 0: the SPOOL_NUM_THREADS environment variable if it is a positive
     * integer, else the number of online CPUs. */
    unsigned num_threads;
    /* Stack size of each worker in bytes; 0: the system default (on Linux
     * the stack rlimit, usually 8 MiB).  Each level of nested spool_join
     * takes a few hundred bytes of worker stack (more under sanitizers);
     * tests/test_stack.c runs a recursion 20,000 joins deep on 64 MiB
     * stacks.  A worker that waits (for a stolen half, a scope, an install
     * into another pool) runs other jobs on its own stack, so jobs of
     * unrelated trees can pile up on it while work keeps arriving. */
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
    /* Where the workers run (0.4).  NULL: the SPOOL_PLACES environment
     * variable if it is set, else no pinning (the OS places threads).
     * "cores": worker i on the i-th logical CPU of the creating thread's
     * affinity mask (round robin when there are more workers than CPUs).
     * A list such as "0-3,8,10": worker i on the i-th CPU of the list
     * (round robin).  A string that does not parse, or names a CPU outside
     * that affinity mask, gives EINVAL from spool_pool_create.  Linux pins
     * with pthread_setaffinity_np; on other systems the string is checked
     * for syntax and otherwise ignored.  spool_pool_worker_cpu says where
     * each worker was put. */
    const char *places;
} spool_config_t;

/* A config with its size set and every other field at its default; set
 * fields after it: spool_config_t c = SPOOL_CONFIG_INIT; c.num_threads = 4; */
#define SPOOL_CONFIG_INIT {sizeof(spool_config_t), 0, 0, 0, 0, 0, 0, 0}

/* The most worker threads one pool can have (the width of the packed sleep
 * counters). */
#define SPOOL_MAX_THREADS 0xFFFFu

/*
 * spool_pool_create: starts a pool of worker threads.
 * Threads: any.
 * Returns: 0, with the pool in *out; EINVAL if out is NULL,
 * num_threads exceeds SPOOL_MAX_THREADS, or config->size is neither 0 nor
 * at least the size of the first layout, or covers non-zero fields this
 * library does not know; EAGAIN, ENOMEM or EINVAL (the
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
 * spool_pool_worker_cpu: the CPU that worker index of pool is pinned to
 * (spool_config_t's places), into *cpu; -1 there if it is not pinned.
 * Threads: any.
 * Returns: 0; EINVAL if pool or cpu is NULL or index >= the pool's size.
 */
SPOOL_API int spool_pool_worker_cpu(const spool_pool_t *pool, unsigned index, int *cpu);

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
 * jobs.  b is visible to thieves at once if it is the worker's oldest job,
 * else from the worker's next fork or join after an idle worker asked for
 * work: a must not wait for b to run elsewhere unless it forks meanwhile
 * (as at one thread, b may also simply run after a).  Outside any pool the pair runs in the global pool (started on first
 * use) while the caller blocks; if the global pool cannot be started, both
 * run on the caller, a first.  spool_join_inline (spool_inline.h) is the
 * same join with its common path compiled into the caller, for the
 * finest-grained forks; it ties the program to the library's layout (see
 * that header).
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
 * before it has run.  In a FIFO scope it is queued FIFO, else LIFO.  Spawns
 * run side by side on workers that are idle when the spawning worker starts
 * running one of them, and, once the jobs it runs are each long beside a
 * steal, on workers that become idle later; a worker that becomes idle
 * while one of a run of short jobs runs may find the rest only when that
 * one ends, so a spawned job must not wait for another to start.
 * If no memory can be had for the job, the spawner runs fn(scope, arg) at
 * once, before this returns (a schedule the rule above allows; counted in
 * spool_worker_stats_t's jobs_run_at_spawn and marked on the timeline), so
 * a scope spawn never fails for memory.
 * Threads: any code that runs while the scope is open and inside it: the
 * body (or, for a group, the code between spool_group_init and
 * spool_group_wait) and anything it calls, and any job of the scope and
 * anything it calls, on whatever thread that runs (a part of a loop, a
 * join's second half, a nested scope's job); also any other thread, while
 * such code waits for it to finish (it must not return before).  Never
 * after the scope has ended.
 * Returns: 0; EINVAL if scope or fn is NULL; ECANCELED if the scope was
 * cancelled (spool_scope_cancel).
 */
SPOOL_API int spool_scope_spawn(spool_scope_t *scope, spool_scope_fn fn, void *arg);

/* The largest argument block a copying spawn stores in a recycled block of
 * its own (larger ones get one allocation of their own, freed when the job
 * has run). */
#define SPOOL_SPAWN_COPY_INLINE 64

/*
 * spool_scope_spawn_copy: as spool_scope_spawn, but the size bytes at arg
 * are copied when the job is spawned (as OpenMP's firstprivate does); fn
 * receives a pointer to the copy, aligned as malloc's memory and valid
 * while fn runs.  The caller may change or free its block as soon as this
 * returns.  size 0 passes NULL.  No memory for the copy: fn runs at once
 * on the caller's block, as for spool_scope_spawn.  A copy whose job is
 * dropped (a cancelled scope) is freed.
 * Threads: as spool_scope_spawn.
 * Returns: 0; EINVAL if scope or fn is NULL, or arg is NULL with size > 0;
 * ECANCELED if the scope was cancelled.
 */
SPOOL_API int spool_scope_spawn_copy(spool_scope_t *scope, spool_scope_fn fn, const void *arg,
                                     size_t size);

/*
 * Task groups: a scope that lives in the caller's frame, opened and closed
 * by the caller, with no body (OpenMP's taskgroup, oneTBB's task_group):
 *
 *     spool_group_t g;
 *     spool_group_init(&g);
 *     for (i = 0; i < n; i++)
 *         spool_group_spawn_copy(&g, work, &items[i], sizeof items[i]);
 *     ... other code of the caller ...
 *     spool_group_wait(&g);
 *
 * Between init and wait the caller's code is the group's body: its jobs
 * receive spool_group_scope(&g) as their scope and may spawn into it, and
 * it may be cancelled (spool_scope_cancel).  Groups nest (a group opened
 * inside a job, a body or another group); the groups one thread opens are
 * waited for in the reverse order of their init.  From outside any pool
 * the jobs go to the global pool (and run at once on the caller if it
 * cannot be started).
 */
typedef struct spool_group {
    /* private: the library's, fixed in size for this ABI version */
    void *spool__private[40];
} spool_group_t;

/*
 * spool_group_init / spool_group_init_fifo: opens group on the calling
 * thread; its jobs run in per-thread LIFO / FIFO order, as in spool_scope /
 * spool_scope_fifo.
 * Threads: any.  The same thread must call spool_group_wait.
 * Returns: nothing.  A NULL group prints one line naming the function and
 * aborts.
 */
SPOOL_API void spool_group_init(spool_group_t *group);
SPOOL_API void spool_group_init_fifo(spool_group_t *group);

/*
 * spool_group_scope: the group's scope, for spool_scope_spawn,
 * spool_scope_cancel and the other calls that take one.
 * Threads: any, while the group is open.
 * Returns: the scope; NULL for a NULL group.
 */
SPOOL_API spool_scope_t *spool_group_scope(spool_group_t *group);

/*
 * spool_group_spawn / spool_group_spawn_copy: spool_scope_spawn /
 * spool_scope_spawn_copy into the group's scope.
 * Threads: as spool_scope_spawn.
 * Returns: as spool_scope_spawn (EINVAL for a NULL group).
 */
SPOOL_API int spool_group_spawn(spool_group_t *group, spool_scope_fn fn, void *arg);
SPOOL_API int spool_group_spawn_copy(spool_group_t *group, spool_scope_fn fn, const void *arg,
                                     size_t size);

/*
 * spool_group_wait: runs jobs until every job spawned into the group,
 * transitively, has finished, then closes the group: its memory may be
 * reused or opened again.  On a worker it runs other jobs meanwhile; outside
 * any pool it blocks.
 * Threads: the thread that called spool_group_init, exactly once per init.
 * Returns: nothing.  A NULL group, a group that is not open, a call from
 * another thread, or groups waited for out of order print one line naming
 * the function and abort.
 */
SPOOL_API void spool_group_wait(spool_group_t *group);

/*
 * spool_scope_cancel: cancels scope: its jobs that have not started will
 * not run (they are dropped, counted in spool_worker_stats_t's
 * jobs_dropped and marked on the timeline), and spawning into it fails
 * with ECANCELED; jobs already running go on (they may poll
 * spool_scope_is_cancelled and return early), and the scope still ends
 * only when they have.  A job that had passed the check when this call
 * returned may still start (at most one per worker).  Cancellation
 * reaches down: a scope made by the body or a job of a cancelled scope
 * (directly, or through the joins, loops and scopes they run) counts as
 * cancelled too; it never reaches up to an enclosing scope.  A dropped
 * job's argument is not freed by spool: when jobs own heap memory through
 * their argument, free it in the scope's owner after the scope has ended.
 * Threads: any thread that may spawn into the scope (while it has not
 * ended).
 * Returns: 0; EINVAL if scope is NULL.  Cancelling twice is not an error.
 */
SPOOL_API int spool_scope_cancel(spool_scope_t *scope);

/*
 * spool_scope_is_cancelled: whether scope, or a scope it was made inside,
 * was cancelled.
 * Threads: as spool_scope_cancel.
 * Returns: 1 if so, else 0 (also 0 for NULL).
 */
SPOOL_API int spool_scope_is_cancelled(const spool_scope_t *scope);

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
 * spool_current_thread_index: the calling worker's index in its pool.  A
 * thread outside any pool that runs a join, loop, scope, isolation or task
 * group in the global pool works as that pool's extra worker while the
 * call lasts, if no other thread does (the global pool's caller slot:
 * see spool_current_num_threads); its index is then the pool's number of
 * workers, here and in the jobs it runs.
 * Threads: any.
 * Returns: 0 .. spool_current_num_threads()-1 on a worker (or the caller
 * slot's holder); -1 on a thread outside any pool.
 */
SPOOL_API int spool_current_thread_index(void);

/*
 * spool_current_num_threads: how many threads may run the current pool's
 * jobs at once (the global pool's, from outside any pool, started if need
 * be): its workers, and for the global pool one more, the caller slot.
 * The global pool lends that slot to one outside thread at a time that
 * runs a join, loop, scope, isolation or task group there, unless its
 * config (spool_global_init) sets a stack size or a start handler; the
 * other outside callers hand their work to a worker and wait.  Every
 * index spool_current_thread_index gives is below this count.  Broadcasts
 * run on the workers only: use the num_threads they pass, not this.
 * Threads: any.
 * Returns: that count (explicit pools: their number of workers); 1 if the
 * global pool cannot be started.
 */
SPOOL_API unsigned spool_current_num_threads(void);

/* ---- work isolation --------------------------------------------------------- */

/*
 * spool_isolate: runs fn(arg) and returns when it has returned.  While fn
 * runs, any wait on the calling thread inside it (a join whose b was
 * stolen, a scope's end, a loop's stolen part, a blocking broadcast, an
 * install into another pool) runs only jobs made inside this call, directly
 * or transitively; jobs made inside carry the isolation, so a worker that
 * runs one of them and waits in it is isolated the same way.  The waiter
 * still helps: it runs the region's jobs from its own deque and the
 * region's jobs at the top of other workers' deques, and it is woken for
 * the region's work.  Besides these it takes only what would otherwise
 * deadlock, and runs it inside the region: broadcasts (each needs every
 * worker), installs by other pools' workers (spool_pool_install from a
 * worker of another pool needs one of this pool's), and a ready task it
 * waits for (spool_task_wait runs it).  Nothing else: no job from outside
 * the pool, no other region's job; those stay where they are.  Isolations
 * nest: an inner one is a region of its own, whose jobs the outer region's
 * waiters do not take.  A job spawned inside into a scope made outside
 * belongs to the region while the call lasts.  Detached spawns
 * (spool_spawn*, spool_pool_spawn* from inside) are not part of the
 * region: they go to the pool's queue.  A task made ready inside (submitted
 * there, or its last predecessor finished there) is the region's.  From
 * outside any pool fn runs in the global pool as spool_pool_install would
 * (on the caller if that cannot be started).  Use it where a job holds a
 * lock (or thread-local state) across a nested parallel call, so that its
 * worker does not start another job that needs the same lock while it
 * waits (the deadlock of oneTBB without this_task_arena::isolate, and of
 * rayon).
 * Threads: any.
 * Returns: nothing.  A NULL fn prints one line naming spool_isolate to
 * stderr and aborts.
 */
SPOOL_API void spool_isolate(spool_fn fn, void *arg);

/* ---- parallel loops -------------------------------------------------------
 *
 * spool_for and spool_reduce split a range of indices in halves with
 * spool_join until the parts are small enough, and call the body on each
 * part.  Every split lives on the stack: no heap allocation.
 *
 * Adaptive splitting (the default) is rayon's: the split budget starts at the
 * pool size (or len / max_len if larger) and halves at each split; a part
 * that migrated to another worker resets it to max(pool size, budget / 2), so
 * stolen work is split further and idle workers get fed.  With two or more
 * threads a part times its first eighth: a long part runs in pieces (the
 * body called on consecutive ranges, in order, on one thread) and splits
 * its rest when another worker is idle; parts too short to repay a steal
 * are not split, unless max_len asks.  Each worker also remembers its last
 * few loops (by body, or fold, and length): one whose work took less
 * than a split would save the last time runs whole on the caller, as one
 * such part (so it still splits if it turns out long), unless max_len
 * asks for shorter parts.  SPOOL_FOR_FIXED
 * splits at the middle while both halves keep min_len iterations, whatever
 * the pool size and whoever steals: the same parts on every run.
 *
 * Work isolation: a worker that waits for a stolen part runs other jobs of
 * the pool meanwhile, on its own stack, including other parts of the same or
 * of an enclosing loop (as oneTBB's parallel_for does without
 * task_arena::isolate).  A body that holds a lock another part of the pool
 * may need, or relies on thread-local state being unchanged across a nested
 * spool call, runs that call inside spool_isolate.
 */
typedef void (*spool_range_fn)(void *ctx, size_t begin, size_t end);

typedef struct spool_for_opts {
    size_t min_len; /* 0 or 1: none.  No part shorter than this, unless the whole range is. */
    size_t max_len; /* 0: none.  Parts are split until no longer than this (min_len wins). */
    unsigned flags; /* 0 or SPOOL_FOR_FIXED */
} spool_for_opts_t;

/* Split at the middle while both halves keep min_len iterations, the same
 * parts on every run and at every thread count (max_len is not used). */
#define SPOOL_FOR_FIXED 1u

/*
 * spool_for: calls body(ctx, b, e) on disjoint parts [b, e) that together
 * cover [begin, end) exactly once, potentially in parallel, and returns when
 * every call has returned.  With lo = min(max(min_len, 1), end - begin) and
 * hi = max(max_len or unbounded, 2 * lo - 1), every part has between lo and
 * hi iterations.  begin >= end: no call.  opts NULL or zeroed: defaults.
 * Runs in the current pool, or from outside any pool in the global pool;
 * a range shorter than 2 * max(min_len, 1) runs at once on the caller, as
 * does everything if the global pool cannot be started.  Loops nest freely
 * (in bodies, joins, scopes, broadcasts).
 * Threads: any.
 * Returns: nothing.  A NULL body prints one line naming spool_for to stderr
 * and aborts.
 */
SPOOL_API void spool_for(size_t begin, size_t end, const spool_for_opts_t *opts,
                         spool_range_fn body, void *ctx);

/* ---- parallel reduce ------------------------------------------------------ */

/* The largest accumulator spool_reduce takes, in bytes. */
#define SPOOL_REDUCE_MAX_SIZE 256

/*
 * A reduction: accumulators of `size` bytes (at most SPOOL_REDUCE_MAX_SIZE,
 * aligned for any type), identity(ctx, acc) sets one to the neutral value,
 * fold(ctx, acc, b, e) adds the elements b .. e-1 to it in index order, and
 * combine(ctx, left, right) sets left to left (+) right, where left covers
 * lower indices than right.  The operation must be associative; it need not
 * be commutative.
 */
typedef struct spool_reducer {
    size_t size;
    void (*identity)(void *ctx, void *acc);
    void (*fold)(void *ctx, void *acc, size_t begin, size_t end);
    void (*combine)(void *ctx, void *left, const void *right);
} spool_reducer_t;

/*
 * spool_reduce: writes into *result (reducer->size bytes) the reduction of
 * [begin, end) in index order; an empty range gives the identity.  Parts are
 * made as in spool_for.  Adaptive mode: a part that runs on the same worker
 * right after its left neighbour keeps folding into that neighbour's
 * accumulator; only a part that migrated starts from the identity and is
 * combined afterwards, so on one thread identity runs once and combine
 * never.  With SPOOL_FOR_FIXED every part starts from the identity and every
 * split combines its two halves: the result is bit-identical at every thread
 * count.  Accumulators live on the stack: no heap allocation.  Where it runs
 * as spool_for.
 * Threads: any.
 * Returns: nothing.  A NULL reducer, function or result, or a size of 0 or
 * above SPOOL_REDUCE_MAX_SIZE prints one line naming spool_reduce to stderr
 * and aborts.
 */
SPOOL_API void spool_reduce(size_t begin, size_t end, const spool_for_opts_t *opts,
                            const spool_reducer_t *reducer, void *ctx, void *result);

/* ---- early-exit search ----------------------------------------------------- */

/* find(ctx, b, e) returns the first index in [b, e) that matches, or e. */
typedef size_t (*spool_find_fn)(void *ctx, size_t begin, size_t end);

/*
 * spool_find_first: the lowest index of [begin, end) that matches, or end if
 * none does.  find is called on disjoint pieces [b, e) of the range, which
 * the pool's threads take in index order, in parallel; a piece that lies
 * wholly above a match already found is not searched.  The answer is the
 * same at every thread count.  The pieces' lengths follow opts as
 * spool_for's calls do (min_len, max_len; SPOOL_FOR_FIXED is not used);
 * begin >= end returns end with no call.  Where it runs as spool_for.
 * Threads: any.
 * Returns: the index.  A NULL find prints one line naming spool_find_first
 * to stderr and aborts; so does a find that returns an index outside
 * [b, e].
 */
SPOOL_API size_t spool_find_first(size_t begin, size_t end, const spool_for_opts_t *opts,
                                  spool_find_fn find, void *ctx);

/*
 * spool_find_any: some matching index of [begin, end), or end if none
 * matches.  As spool_find_first, but no piece is started once any piece
 * has found a match, so the answer may differ from run to run when several
 * indices match.
 * Threads: any.
 * Returns: the index; a NULL find aborts as in spool_find_first.
 */
SPOOL_API size_t spool_find_any(size_t begin, size_t end, const spool_for_opts_t *opts,
                                spool_find_fn find, void *ctx);

/* ---- broadcast ------------------------------------------------------------
 *
 * A broadcast runs a function once on every worker of a pool, with
 * spool_current_thread_index() == index.  Each worker has its own queue of
 * broadcasts, which only it takes (nobody steals them); a worker runs the
 * next one when its own deque is empty, before it steals.  Concurrent
 * broadcasts reach every worker in the same order.  Sleeping workers are
 * woken for it.
 */
typedef void (*spool_broadcast_fn)(void *ctx, unsigned index, unsigned num_threads);
typedef void (*spool_scope_broadcast_fn)(spool_scope_t *scope, void *ctx, unsigned index,
                                         unsigned num_threads);

/*
 * spool_broadcast: runs fn(ctx, index, num_threads) once on every worker of
 * the current pool (the global pool from outside any pool) and returns when
 * all have returned.  A worker of that pool runs its own part while it
 * waits.  If the global pool cannot be started, fn(ctx, 0, 1) runs on the
 * caller.
 * Threads: any.
 * Returns: 0; EINVAL if fn is NULL; ENOMEM if a worker's queue could not
 * take it (then it ran nowhere).
 */
SPOOL_API int spool_broadcast(spool_broadcast_fn fn, void *ctx);

/*
 * spool_pool_broadcast: as spool_broadcast, on the workers of pool.  From a
 * worker of another pool, the caller keeps running its own pool's jobs
 * while it waits, so pools broadcasting into each other do not deadlock.
 * Threads: any.
 * Returns: 0; EINVAL if pool or fn is NULL; ECANCELED if the call comes from
 * outside the pool after spool_pool_destroy has begun; ENOMEM as
 * spool_broadcast; ENOTRECOVERABLE in a child process forked after the pool
 * was created.
 */
SPOOL_API int spool_pool_broadcast(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx);

/*
 * spool_spawn_broadcast: runs fn(ctx, index, num_threads) once on every
 * worker of the current pool (the global pool from outside any pool),
 * detached: it returns at once.  release(ctx), unless release is NULL, runs
 * once after the last of the runs has returned.  spool_pool_destroy waits
 * for it.  If the global pool cannot be started, fn(ctx, 0, 1) and then
 * release(ctx) run on the caller.
 * Threads: any.
 * Returns: 0; EINVAL if fn is NULL; ENOMEM if no memory could be had or a
 * worker's queue could not take it (then nothing runs, release neither).
 */
SPOOL_API int spool_spawn_broadcast(spool_broadcast_fn fn, void *ctx, void (*release)(void *ctx));

/*
 * spool_pool_spawn_broadcast: as spool_spawn_broadcast, on the workers of
 * pool.
 * Threads: any.
 * Returns: 0; EINVAL if pool or fn is NULL; ECANCELED if the call comes from
 * outside the pool after spool_pool_destroy has begun; ENOMEM as
 * spool_spawn_broadcast; ENOTRECOVERABLE in a child process forked after the
 * pool was created.  On error nothing runs and release is not called.
 */
SPOOL_API int spool_pool_spawn_broadcast(spool_pool_t *pool, spool_broadcast_fn fn, void *ctx,
                                         void (*release)(void *ctx));

/*
 * spool_scope_spawn_broadcast: runs fn(scope, ctx, index, num_threads) once
 * on every worker of the scope's pool; the scope does not end before all the
 * runs have returned.  If the scope has no pool (the global pool could not
 * be started), fn(scope, ctx, 0, 1) runs on the caller.
 * Threads: the scope's body or a job running in the scope (on any thread);
 * never after the scope has ended.
 * Returns: 0; EINVAL if scope or fn is NULL; ECANCELED if the scope was
 * cancelled; ENOMEM if no memory could be had or a worker's queue could
 * not take it (then nothing runs).
 */
SPOOL_API int spool_scope_spawn_broadcast(spool_scope_t *scope, spool_scope_broadcast_fn fn,
                                          void *ctx);

/* ---- yield ---------------------------------------------------------------- */

typedef enum spool_yield {
    SPOOL_YIELD_OUTSIDE = -1, /* the caller is not a worker: nothing was done */
    SPOOL_YIELD_IDLE = 0,     /* no job was found */
    SPOOL_YIELD_EXECUTED = 1  /* one job was found and run to completion */
} spool_yield_t;

/*
 * spool_yield_now: looks once for a job where the calling worker would (its
 * own deque, its broadcasts, the other workers' deques, the pool's queue of
 * outside work) and, if it finds one, runs it to completion on the caller's
 * stack.  It does not sleep, does not call sched_yield and leaves the sleep
 * state alone.
 * Threads: any; it does something only on a worker.
 * Returns: SPOOL_YIELD_EXECUTED, SPOOL_YIELD_IDLE, or SPOOL_YIELD_OUTSIDE off a
 * worker.
 */
SPOOL_API spool_yield_t spool_yield_now(void);

/*
 * spool_yield_local: as spool_yield_now, looking only at the calling
 * worker's own deque and its broadcasts.
 * Threads: any; it does something only on a worker.
 * Returns: as spool_yield_now.
 */
SPOOL_API spool_yield_t spool_yield_local(void);

/*
 * spool_current_thread_has_pending_tasks: whether the calling worker's own
 * deque holds jobs.  A snapshot: thieves may take them at any moment, so it
 * is a hint (e.g. to stop splitting work), never a guarantee.
 * Threads: any.
 * Returns: 1 or 0 on a worker; -1 outside any pool.
 */
SPOOL_API int spool_current_thread_has_pending_tasks(void);

/* Per-worker counters, kept when spool is built with -DSPOOL_STATS=ON.  New
 * counters are added at the end only. */
typedef struct spool_worker_stats {
    unsigned long long jobs_executed;    /* jobs taken from a deque or the injector and run */
    unsigned long long steals;           /* jobs stolen from other workers */
    unsigned long long failed_steals;    /* steal attempts that found nothing or lost a race */
    unsigned long long sleeps;           /* times the worker blocked on its condvar */
    unsigned long long wakeups_received; /* times another thread woke it */
    unsigned long long wakeups_sent;     /* times it woke another worker */
    unsigned long long jobs_dropped;     /* jobs of cancelled scopes it dropped unrun (0.4) */
    unsigned long long jobs_run_at_spawn; /* scope spawns it ran at once: no memory (0.5) */
} spool_worker_stats_t;

/*
 * spool_pool_stats: reads worker index's counters (a snapshot: the worker
 * may be counting while it is read) into out, writing at most out_size
 * bytes: pass sizeof *out, so that a newer library with more counters
 * writes only those the caller knows (and an older one zeroes the rest).
 * Threads: any.
 * Returns: 0; EINVAL if pool or out is NULL, index is not one its jobs run
 * on (its workers', and the caller slot's in the global pool), or out_size
 * is smaller than one counter; ENOTSUP if spool was built without
 * SPOOL_STATS.
 */
SPOOL_API int spool_pool_stats(const spool_pool_t *pool, unsigned index, spool_worker_stats_t *out,
                               size_t out_size);

/*
 * spool_pool_trace_start: starts recording the pool's timeline: each worker
 * writes, into a ring of records_per_worker records (40 bytes each) of its
 * own, every job it runs from its main loop or while waiting (with the
 * user function and argument, and whether it came from its own deque, was
 * stolen from worker k, injected from outside or broadcast), every wait
 * for a stolen half of a join, every search for work and every sleep.  A join whose second half is taken back by its own worker is
 * not recorded (it costs nothing).  Recording takes no lock, no
 * read-modify-write and no allocation; a full ring drops its oldest record
 * and counts the loss.  A worker that is busy when the trace starts joins it
 * at its next wait or search.  The rings are kept, for
 * spool_pool_trace_write, until the pool is destroyed (each start
 * allocates new ones).  Setting SPOOL_TRACE=path.json or path.html in the
 * environment starts a trace (of SPOOL_TRACE_RECORDS records, default
 * 65536) in every pool created, the global one included, and writes it
 * when the pool is destroyed (the global pool: at exit); %p in the path
 * becomes the process id, %n the pool's number.
 * Threads: any, inside or outside the pool.
 * Returns: 0; EINVAL if pool is NULL or records_per_worker is 0; EALREADY
 * if a trace is being recorded; ENOMEM; ENOTRECOVERABLE if the pool was
 * created before fork(); ENOTSUP if spool was built without tracing
 * (-DSPOOL_TRACE=OFF).
 */
SPOOL_API int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker);

/*
 * spool_pool_trace_stop: stops recording; what was recorded stays, for
 * spool_pool_trace_write.
 * Threads: any.
 * Returns: 0; EINVAL if pool is NULL; EALREADY if no trace was being
 * recorded; ENOTRECOVERABLE, ENOTSUP as spool_pool_trace_start.
 */
SPOOL_API int spool_pool_trace_stop(spool_pool_t *pool);

/*
 * spool_pool_trace_write: writes the newest trace (running or stopped) to
 * path, in the format its extension names: ".json", Chrome's trace event
 * format, which Perfetto UI (ui.perfetto.dev) and chrome://tracing open (a
 * row per worker, a span per job, wait, search and sleep, an arrow from
 * victim to thief for every steal); ".html", one self-contained page that
 * a browser opens offline (the timeline with zoom, and per worker the busy,
 * searching and sleeping shares, jobs, steals and wake-ups).  Functions
 * are named from the dynamic symbol table (link executables with -rdynamic
 * to see static ones), else as object+offset for addr2line.  The trace may
 * still be recording: the file holds what was complete when it was read,
 * and the trace is kept, so the call may be repeated.
 * Threads: any.
 * Returns: 0; EINVAL if pool or path is NULL, the extension is neither
 * .json nor .html, or nothing was ever traced; ENOMEM; the errno of the
 * failing file call (EIO if it gave none) if the file cannot be written;
 * ENOTRECOVERABLE, ENOTSUP as spool_pool_trace_start.
 */
SPOOL_API int spool_pool_trace_write(spool_pool_t *pool, const char *path);

/* ---- tasks and completions ------------------------------------------------
 *
 * A task is a job with a handle: it runs fn(arg) once it is submitted and
 * every task that precedes it has finished, and it can be waited for,
 * cancelled, and made to post a tag to a completion queue when it
 * finishes.  A completion queue has a file descriptor that is readable
 * while it holds tags, so that an event loop (poll, epoll, kqueue,
 * libuv's uv_poll) learns of finished work without blocking.  A task runs
 * exactly once, or never if it was cancelled before it started; either
 * way it "finishes" once and posts its tag once.  A task whose last
 * predecessor finishes on a worker of its pool is pushed on that worker's
 * deque (a chain stays on one warm worker); otherwise it is queued for
 * the pool.  Dependencies are counted, never polled.
 */
typedef struct spool_task spool_task_t;               /* opaque, reference counted */
typedef struct spool_completions spool_completions_t; /* opaque */

/*
 * spool_task_create: makes a task that will run fn(arg) in pool once it is
 * submitted and every predecessor has finished.  pool NULL: the calling
 * worker's pool, or from outside any pool the global pool.  *out holds one
 * reference, dropped with spool_task_release.  The task keeps its pool's
 * memory (not its threads) until its last reference is dropped; a pool's
 * destroy waits for submitted tasks, not for created ones.
 * Threads: any.
 * Returns: 0; EINVAL if fn or out is NULL; ENOMEM; ECANCELED if the pool's
 * destroy has begun (or the global pool cannot be started);
 * ENOTRECOVERABLE in a child process forked after the pool was created.
 */
SPOOL_API int spool_task_create(spool_pool_t *pool, spool_fn fn, void *arg, spool_task_t **out);

/*
 * spool_task_precede: b will not start before a has finished.  b must not
 * be submitted yet; a may be in any state: an a that has run adds
 * nothing, and an a that was cancelled cancels b (b depends on it).  The
 * two tasks may belong to different pools.
 * Threads: any.
 * Returns: 0; EINVAL if a or b is NULL, a == b, b was submitted or
 * cancelled already, or the edge would close a cycle; ENOMEM.
 */
SPOOL_API int spool_task_precede(spool_task_t *a, spool_task_t *b);

/*
 * spool_task_notify: when task finishes (runs, or is cancelled), tag is
 * posted to cq.  At most one queue per task, given before the task is
 * submitted; the queue's room for the tag is taken now, so the post
 * cannot fail later.
 * Threads: any.
 * Returns: 0; EINVAL if task or cq is NULL, or task was submitted or
 * cancelled already; EALREADY if the task has a queue already; ENOMEM.
 */
SPOOL_API int spool_task_notify(spool_task_t *task, spool_completions_t *cq, void *tag);

/*
 * spool_task_submit: lets the task run once its predecessors have
 * finished (at once if it has none).
 * Threads: any.
 * Returns: 0; EINVAL if task is NULL, or was submitted or cancelled
 * already; ECANCELED if the call comes from outside the task's pool after
 * its destroy has begun (the task is then cancelled: it will not run, its
 * tag is posted).
 */
SPOOL_API int spool_task_submit(spool_task_t *task);

/*
 * spool_task_wait: waits until the task has finished.  On a worker it runs
 * other jobs meanwhile, as a join does; elsewhere it blocks.  A cancelled
 * task counts as finished: 0 at once, submitted or not.  The task's
 * effects are visible to the caller when it returns.
 * Threads: any.
 * Returns: 0; EINVAL if task is NULL; EDEADLK if the task was never
 * submitted and is not cancelled (it could never finish).
 */
SPOOL_API int spool_task_wait(spool_task_t *task);

/*
 * spool_task_done: whether the task has finished (run, or cancelled).
 * Threads: any.
 * Returns: 1 if it has, else 0 (also 0 for NULL).
 */
SPOOL_API int spool_task_done(const spool_task_t *task);

/*
 * spool_task_cancel: a task that has not started will not run, and every
 * task that depends on it, directly or transitively, is cancelled too;
 * each one still posts its tag (once) and counts as finished.  Works
 * before or after submit.  A task already running is not stopped.
 * Threads: any.
 * Returns: 0 if the task will not run (also if it was cancelled already);
 * EBUSY if it has started or finished; EINVAL if task is NULL.
 */
SPOOL_API int spool_task_cancel(spool_task_t *task);

/*
 * spool_task_cancelled: whether the task was cancelled (it did not run and
 * will not).
 * Threads: any.
 * Returns: 1 if it was, else 0 (also 0 for NULL).
 */
SPOOL_API int spool_task_cancelled(const spool_task_t *task);

/*
 * spool_task_release: drops the caller's reference.  A submitted task
 * still runs; a task released before it was submitted is cancelled (its
 * tag is posted).  The task is freed once nothing refers to it (its
 * predecessors and its pool hold references while they need it).
 * Threads: any.
 * Returns: nothing.  NULL is ignored.
 */
SPOOL_API void spool_task_release(spool_task_t *task);

/*
 * spool_completions_create: a queue of completion tags, to be read by one
 * thread of the caller's at a time, with a file descriptor that is
 * readable while the queue is not empty (an eventfd on Linux, a pipe
 * elsewhere).  Tasks post to it from any thread.
 * Threads: any.
 * Returns: 0, with the queue in *out; EINVAL if out is NULL; ENOMEM; EMFILE
 * or ENFILE if no descriptor could be had.
 */
SPOOL_API int spool_completions_create(spool_completions_t **out);

/*
 * spool_completions_fd: the queue's descriptor, for poll/epoll/kqueue or
 * uv_poll_init: readable (POLLIN) while the queue holds tags.  Read it
 * only through spool_completions_take or _wait, which clear it when they
 * empty the queue; it is closed by spool_completions_destroy.
 * Threads: any.
 * Returns: the descriptor; -1 if cq is NULL.
 */
SPOOL_API int spool_completions_fd(const spool_completions_t *cq);

/*
 * spool_completions_take: moves up to max tags into tags, oldest first,
 * without blocking; when that empties the queue, its descriptor stops
 * being readable.
 * Threads: any, one at a time per queue.
 * Returns: the number of tags moved; 0 if there were none (or cq or tags
 * is NULL, or max is 0).
 */
SPOOL_API size_t spool_completions_take(spool_completions_t *cq, void **tags, size_t max);

/*
 * spool_completions_wait: blocks until at least one tag is in the queue or
 * timeout_ms milliseconds have passed (-1: no timeout, 0: do not block),
 * then moves tags as spool_completions_take does.
 * Threads: any, one at a time per queue; it blocks even on a worker.
 * Returns: the number of tags moved; 0 on timeout (or a NULL cq or tags,
 * or max 0).
 */
SPOOL_API size_t spool_completions_wait(spool_completions_t *cq, void **tags, size_t max,
                                        int timeout_ms);

/*
 * spool_completions_destroy: frees the queue and closes its descriptor, once
 * every task that will post to it has finished or been cancelled (tags
 * still unread are dropped).
 * Threads: any.
 * Returns: 0; EBUSY while a task that will post to it has not finished (a
 * task waiting for a predecessor counts), and then nothing is done;
 * EINVAL if cq is NULL.
 */
SPOOL_API int spool_completions_destroy(spool_completions_t *cq);

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
