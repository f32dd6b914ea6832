/*
 * spool_task.h: tasks with dependencies (spool_task_*) and completion queues
 * that an event loop can wait on (spool_completions_*).
 *
 * Part of spool's public interface: spool.h includes it, and it includes
 * spool.h, so that either may be included first; the conventions that
 * spool.h's opening comment states hold here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_H_TASK
#define SPOOL_H_TASK

#include "spool.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* SPOOL_H_TASK */
