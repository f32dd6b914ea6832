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

#include "registry/caller_slot.h"

#include "job/context.h"
#include "registry/pool.h"

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

/* Does pool's caller slot have broadcasts queued while nobody holds it?
 * A relaxed look, for a worker's take and an isolated sleeper's check;
 * the sleepers' final check reads it after their SleepFence (wait.md). */
bool spool__caller_needs_serving(spool_pool_t *pool);

/* The caller slot's broadcasts, as a job that a worker takes when they
 * wait with the slot free (spool__caller_needs_serving): running it, the
 * worker takes the slot (if it still can), serves it as its holder would
 * (runs its broadcasts, with the slot's index), and gives it back. */
extern spool__job_t spool__caller_service;

/* Runs fn(arg) as pool's caller, if the slot can be had.  True if it ran. */
bool spool__caller_run(spool_pool_t *pool, spool_fn fn, void *arg, spool__context_t made_in);

#endif
