/*
 * GenMC client for the FIFO queue (src/queue/fifo_queue.h, src/queue/fifo.md), under RC11 and IMM, on the real code built with a first segment
 * of 1 slot and segments of at most 2, so that four calls reach a new
 * segment, the reuse of a ring's slot, and the freeing of a drained segment.
 *
 * The owner (main) pushes CALLS (4) calls, each with a plain payload behind
 * its argument.  It hands the reference to call 0 to taker 0 and the one to
 * call 1 to taker 1 (a release store each, as a ticket's push on a deque
 * would hand it), and spends the references to calls 2 and 3 itself, each
 * right after its push.  Every take checks the call's function and payload
 * (a slot read before its push, or a payload not ordered before the read,
 * fails) and counts it; at the end every call was taken exactly once.  The
 * push of call 3 frees segment 0 if it finds the queue empty; a taker still
 * reading it would be a race with the free.
 *
 * A taker's retry after a lost race is left out (__VERIFIER_assume): it is
 * the same try again.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   fifo-front-relaxed  (a taker's load of
 *        front: a later reference took an earlier call, and the call left
 *        to an older reference is read before its push is seen)
 *   fifo-link-relaxed   (a new segment
 *        linked without release: its start is read unordered)
 *   fifo-drained-relaxed (the owner's look
 *        at front before it reuses a slot or frees a segment): rejected
 *        under RC11 only (check.sh's rc11:).  Under IMM the taker's read of
 *        the slot is ordered before its release CAS, and the owner's free
 *        and overwrite depend by control on the value of front it read, so
 *        the hardware cannot reorder them; C11 promises no such thing.
 */
#include "fifo_client.h"

static atomic_int handed[2]; /* the references to calls 0 and 1 */

/* The take of thread who (0, 1: the takers; 2: the owner), into a global:
 * GenMC 0.11 took an inlined local's end of lifetime for a free, and its
 * next use for a use after free. */
static spool__fifo_call_t taken_call[3];
static void take_one(int who)
{
    spool__fifo_call_t *call = &taken_call[who];
    __VERIFIER_assume(spool__fifo_queue_try_take(&queue, call));
    check_taken(call);
}

static void *taker(void *arg)
{
    atomic_int *reference = arg;
    /* Acquire pairs with the owner's release store: the ticket's hand-over. */
    __VERIFIER_assume(atomic_load_explicit(reference, memory_order_acquire) == 1);
    take_one((int)(reference - handed));
    return NULL;
}

int main(void)
{
    assert(spool__fifo_queue_init(&queue) == 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, taker, &handed[i]);
    for (int i = 0; i < CALLS; i++) {
        push(i);
        if (i < 2)
            atomic_store_explicit(&handed[i], 1, memory_order_release);
        else
            take_one(2);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    check_each_taken_once();
    spool__fifo_queue_destroy(&queue);
    return 0;
}
