/*
 * spool: a work-stealing thread pool for C, after rayon-core.
 *
 * The whole C API comes with this one header (as uv.h and zstd.h are),
 * grouped by concept; most of its length is the contract of each call,
 * which belongs beside its declaration.  It holds pools, joins, scopes,
 * spawns, isolation and yields, and includes the rest, one header per
 * concern: spool_loop.h (loops, reductions, search), spool_broadcast.h
 * (broadcasts), spool_task.h (tasks and completion queues), spool_trace.h
 * (counters and timelines).  spool_inline.h adds the inlined fork and join,
 * spool_typed.h typed tasks, spool.hpp the C++ wrappers.
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
#define SPOOL_VERSION_MINOR 6
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
 * index spool_current_thread_index gives is below this count, and a
 * broadcast runs once for each index below it (the slot's included, run
 * by its holder, or while nobody holds it by a thread the pool keeps for
 * it: spool_broadcast.h) and passes it as num_threads: an array of this
 * many entries, one per index, covers every thread that runs the pool's
 * jobs, and a barrier of this many broadcast runs fills.
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
 * belongs to that scope and its region: the region's waiters run it only
 * from their own deque (as their code's own work).  Yields inside
 * (spool_yield_now, spool_yield_local) take only what a wait there takes.
 * Detached spawns
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

/* ---- yield ---------------------------------------------------------------- */

typedef enum spool_yield {
    SPOOL_YIELD_OUTSIDE = -1, /* the caller is not a worker: nothing was done */
    SPOOL_YIELD_IDLE = 0,     /* no job was found */
    SPOOL_YIELD_EXECUTED = 1  /* one job was found and run to completion */
} spool_yield_t;

/*
 * spool_yield_now: looks once for a job where the calling worker would if
 * it waited here (its own deque, its broadcasts, the other workers' deques,
 * the pool's queue of outside work; inside spool_isolate only what a wait
 * there takes) and, if it finds one, runs it to completion on the caller's
 * stack.  It does not sleep, does not call sched_yield and leaves the sleep
 * state alone.
 * The caller's own typed spawns (spool_typed.h) are not among what it
 * takes: each is run by the sync that ends it, or by a thief.
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
 * deque holds jobs, or its typed spawns (spool_typed.h) not synced include
 * one no thief took.  A snapshot: thieves may take them at any moment, so
 * it is a hint (e.g. to stop splitting work), never a guarantee.
 * Threads: any.
 * Returns: 1 or 0 on a worker; -1 outside any pool.
 */
SPOOL_API int spool_current_thread_has_pending_tasks(void);

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

/* The rest of the interface, one header per concern. */
#include "spool_loop.h"
#include "spool_broadcast.h"
#include "spool_trace.h"
#include "spool_task.h"

#endif /* SPOOL_H */
