/*
 * The part the FIFO queue's GenMC clients (fifo_segments.c, fifo_batch.c)
 * share: the real queue built with a first segment of 1 slot and segments
 * of at most 2 (so that four calls reach a new segment, the reuse of a
 * ring's slot and the freeing of a drained segment), CALLS calls each with
 * a plain payload behind its argument, push(), and check_taken(), which
 * checks a taken call's function and payload (a slot read before its push,
 * or a payload not ordered before the read, fails) and counts the take.
 */
#ifndef SPOOL_MODEL_FIFO_CLIENT_H
#define SPOOL_MODEL_FIFO_CLIENT_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define SPOOL__FIFO_QUEUE_INITIAL_CAPACITY 1
#define SPOOL__FIFO_QUEUE_MAX_CAPACITY 2
#include "queue/fifo_queue.c"

int spool__test_deque_grow_fails(void)
{
    return 0;
}

void __VERIFIER_assume(bool);

#define CALLS 4

static spool__fifo_queue_t queue;
static int payload[CALLS]; /* plain, written before the push */
static atomic_int taken[CALLS];

static void call_fn(void)
{
}

static void push(int i)
{
    payload[i] = i + 1;
    assert(spool__fifo_queue_push(&queue, call_fn, &payload[i]));
}

static void check_taken(const spool__fifo_call_t *call)
{
    assert(call->fn == call_fn);
    int *p = call->arg;
    int i = (int)(p - payload);
    assert(i >= 0 && i < CALLS);
    assert(*p == i + 1);
    atomic_fetch_add_explicit(&taken[i], 1, memory_order_relaxed);
}

/* At the end: every call taken exactly once. */
static void check_each_taken_once(void)
{
    for (int i = 0; i < CALLS; i++)
        assert(atomic_load_explicit(&taken[i], memory_order_relaxed) == 1);
}

#endif
