/*
 * spool_broadcast.h: broadcasts, a function run once for every thread index
 * of a pool (spool_broadcast and its pool, detached and scope forms).
 *
 * Part of spool's public interface: spool.h includes it, and it includes
 * spool.h, so that either may be included first; the conventions that
 * spool.h's opening comment states hold here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_H_BROADCAST
#define SPOOL_H_BROADCAST

#include "spool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- broadcast ------------------------------------------------------------
 *
 * A broadcast runs a function once for every index of a pool's index space,
 * [0, spool_current_num_threads()), with spool_current_thread_index() ==
 * index and num_threads that count, as rayon-core's does: per-thread state
 * set up by a broadcast covers every thread that runs the pool's jobs.
 * Each worker has its own queue of broadcasts, which only it takes (nobody
 * steals them); a worker runs the next one when its own deque is empty,
 * before it steals.  Concurrent broadcasts reach every index in the same
 * order.  Sleeping workers are woken for it.
 *
 * The global pool's last index is its caller slot's (spool_current_num_threads).
 * Its run is made by the slot's holder (the outside thread that works in
 * the pool at the time) at its next wait in spool or before it leaves, or,
 * while nobody holds the slot, by a thread the pool keeps for that index
 * (started by its first broadcast; no worker runs it while that thread
 * runs), always with the slot's index.  So every index's run can start
 * while the others wait: a broadcast's runs may wait for each other (a
 * barrier of num_threads parties) and for threads outside the pool (the
 * outside thread that spawned them: num_threads + 1), never for a thread
 * of the pool that waits in its own code instead of in spool (a worker, or
 * the slot's holder, blocked at that barrier itself: its own index's run
 * would never start).  If the pool cannot start that thread, its workers
 * run the slot's index, and runs that wait for each other may hang.
 */
typedef void (*spool_broadcast_fn)(void *ctx, unsigned index, unsigned num_threads);
typedef void (*spool_scope_broadcast_fn)(spool_scope_t *scope, void *ctx, unsigned index,
                                         unsigned num_threads);

/*
 * spool_broadcast: runs fn(ctx, index, num_threads) once for every index of
 * the current pool (the global pool from outside any pool; see above) and
 * returns when all have returned.  A worker of that pool runs its own part
 * while it waits; an outside caller runs the global pool's slot index if
 * the slot is free.  If the global pool cannot be started, fn(ctx, 0, 1)
 * runs on the caller.  The runs of one broadcast (of every form) may wait
 * for each other: each index's run can start while the others wait, the
 * caller slot's too (run by its holder, or by a thread the pool keeps for
 * it), unless the thread of that index is blocked in its own code.
 * Threads: any.
 * Returns: 0; EINVAL if fn is NULL; ENOMEM if a worker's queue could not
 * take it (then it ran nowhere).
 */
SPOOL_API int spool_broadcast(spool_broadcast_fn fn, void *ctx);

/*
 * spool_pool_broadcast: as spool_broadcast, in pool's index space.  From a
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
 * spool_spawn_broadcast: runs fn(ctx, index, num_threads) once for every
 * index of the current pool (the global pool from outside any pool; see
 * above), detached: it returns at once.  release(ctx), unless release is NULL, runs
 * once after the last of the runs has returned.  spool_pool_destroy waits
 * for it.  If the global pool cannot be started, fn(ctx, 0, 1) and then
 * release(ctx) run on the caller.
 * Threads: any.
 * Returns: 0; EINVAL if fn is NULL; ENOMEM if no memory could be had or a
 * worker's queue could not take it (then nothing runs, release neither).
 */
SPOOL_API int spool_spawn_broadcast(spool_broadcast_fn fn, void *ctx, void (*release)(void *ctx));

/*
 * spool_pool_spawn_broadcast: as spool_spawn_broadcast, in pool's index
 * space.
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
 * for every index of the scope's pool (see above); the scope does not end
 * before all the runs have returned.  If the scope has no pool (the global pool could not
 * be started), fn(scope, ctx, 0, 1) runs on the caller.
 * Threads: the scope's body or a job running in the scope (on any thread);
 * never after the scope has ended.
 * Returns: 0; EINVAL if scope or fn is NULL; ECANCELED if the scope was
 * cancelled; ENOMEM if no memory could be had or a worker's queue could
 * not take it (then nothing runs).
 */
SPOOL_API int spool_scope_spawn_broadcast(spool_scope_t *scope, spool_scope_broadcast_fn fn,
                                          void *ctx);

#ifdef __cplusplus
}
#endif

#endif
