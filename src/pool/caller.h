/*
 * Internal: the caller slot (caller.c; caller.md).  A thread outside any
 * pool that runs work in a pool (spool_join, loops, scopes, install,
 * isolate, a task group's wait) works as that pool's extra worker, index
 * num_threads, for the duration of the call, instead of handing the work
 * to a worker and blocking: it has the slot's deque, steals, and sleeps in
 * the pool's sleep protocol like any worker.  One thread at a time holds
 * the slot; others hand off as before.
 */
#ifndef SPOOL_CALLER_H
#define SPOOL_CALLER_H

#include <stdbool.h>

#include "scheduler/caller_slot.h"

#include "job/context.h"
#include "scheduler/pool.h"

struct spool__worker;

/* The calling thread, outside any pool, takes pool's caller slot and
 * becomes its worker, in context made_in.  Returns the slot's worker, or
 * NULL if the slot is held or not lent (a pool with its own stack size),
 * or the pool is being destroyed; then nothing changed. */
struct spool__worker *spool__caller_enter(spool_pool_t *pool, spool__context_t made_in);

/* The slot's holder w gives it back: runs whatever is left on its deque
 * (jobs it took on while waiting and handed-on rests, detached spawns),
 * leaves the context entered, and is outside any pool again. */
void spool__caller_leave(struct spool__worker *w);

/* The caller slot's broadcasts, as a job that a worker takes when they
 * wait with the slot free and the pool has no server
 * (spool__slot_needs_serving, worker.h; the pool offers it as
 * slot_service): running it, the worker takes the slot (if it still can
 * and no server runs), serves it as its holder would (runs its
 * broadcasts, with the slot's index), and gives it back. */
extern spool__job_t spool__caller_service;

/* The slot's server (a thread of pool's own, outside its workers) serves
 * the slot's broadcasts as a holder that runs nothing else: takes the slot
 * if it can, runs the queued runs and what they leave, gives it back.  No
 * unit of outside work: destroy joins the server after the workers, and
 * the runs' broadcasts keep the workers up.  True if it held the slot. */
bool spool__caller_serve(spool_pool_t *pool);

/* Runs fn(arg) as pool's caller, if the slot can be had.  True if it ran. */
bool spool__caller_run(spool_pool_t *pool, spool_fn fn, void *arg, spool__context_t made_in);

/* The slot's server (slot_server.c): a thread of pool's own that serves
 * the slot's broadcasts while nobody holds it.  post, with pool's
 * broadcast_lock held, after queuing a broadcast on a pool that lends its
 * slot: starts the server on the first call (if no thread can be had the
 * workers serve the slot alone) and wakes it.  stop, from destroy once
 * the workers are joined: ends and joins the server if it was started. */
void spool__slot_server_post(spool_pool_t *pool);
void spool__slot_server_stop(spool_pool_t *pool);

#endif
