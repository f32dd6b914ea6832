/*
 * GenMC client for the caller slot's server and the releaser's look
 * (src/scheduler/caller_slot.h; src/pool/caller.md, H5 and H6), under RC11
 * and IMM.  The slot starts held by main, an outside caller.  A
 * broadcaster queues JOBS runs on the slot's broadcast queue, one per
 * broadcast, each pushed with the pool's lock held and posted under it, as
 * broadcast_queue does.  The server waits for each post under the lock
 * (its condition variable, written as an assume: an execution where it
 * would still sleep goes no further), then looks (its ServerFence) and, if
 * the slot is free with runs queued, takes it and serves: takes every run,
 * gives the slot back and looks again (the ReleaseFence).  main, the
 * holder, takes what is queued and gives the slot back the same way,
 * serving again if its look sees a run.  What must hold: once all are
 * joined, each run was taken exactly once, its plain payload seen (the
 * hand-over between holders orders the takes), the queue is empty.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   slot-server-unfenced    the server's look without its ServerFence
 *   slot-release-unfenced   the releaser's look without its ReleaseFence
 *   slot-look-at-bottom     the releaser's look at bottom, not split: it
 *                           may see a run its take does not yet, and
 *                           takes the slot again and again for nothing
 *   -DPUSH_AFTER_POST       the broadcaster posts, unlocks, then pushes
 */
#define JOBS 2
#define DEQUE_CLIENT_PLAIN 1 /* its thief is unused: the holders take */
#include "deque_client.h"

#include "scheduler/caller_slot.h"

void __VERIFIER_assume(bool);

#ifndef PUSH_AFTER_POST
#define PUSH_AFTER_POST 0
#endif

static atomic_int taken; /* the slot's flag */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int posted; /* under lock */

/* The holder takes every run queued (slot_drain's broadcasts). */
static void drain(void)
{
    for (int i = 0; i <= JOBS; i++) {
        spool__job_t *job;
        spool__steal_t r = spool__deque_take_front(&deque, &job);
        if (r == SPOOL__STEAL_EMPTY)
            return;
        if (r == SPOOL__STEAL_SUCCESS)
            take(job);
    }
}

/* Gives the slot back, serving what the look after finds (slot_release).
 * A look that takes the slot again finds a run to take: at most JOBS. */
static void release(void)
{
    for (int i = 0; spool__caller_release_look(&taken, &deque); i++) {
        assert(i < JOBS);
        drain();
    }
}

static void *broadcaster(void *arg)
{
    (void)arg;
    for (int i = 0; i < JOBS; i++) {
        jobs[i].payload = i + 1;
        pthread_mutex_lock(&lock);
        if (!PUSH_AFTER_POST)
            assert(spool__deque_push_public(&deque, &jobs[i].base));
        posted++;
        pthread_mutex_unlock(&lock);
        if (PUSH_AFTER_POST)
            assert(spool__deque_push_public(&deque, &jobs[i].base));
    }
    return NULL;
}

static void *server(void *arg)
{
    (void)arg;
    int seen = 0;
    for (int i = 0; i < JOBS && seen < JOBS; i++) {
        pthread_mutex_lock(&lock);
        __VERIFIER_assume(posted > seen); /* else it waits on its condition */
        seen = posted;
        pthread_mutex_unlock(&lock);
        if (spool__slot_server_look(&taken, &deque) && spool__caller_claim(&taken)) {
            drain();
            release();
        }
    }
    return NULL;
}

int main(void)
{
    spool__deque_init(&deque);
    atomic_init(&taken, 1); /* main holds the slot */
    pthread_t b, s;
    pthread_create(&b, NULL, broadcaster, NULL);
    pthread_create(&s, NULL, server, NULL);
    drain();
    release();
    pthread_join(b, NULL);
    pthread_join(s, NULL);
    check_each_taken_once();
    assert(spool__deque_len(&deque) == 0);
    return 0;
}
