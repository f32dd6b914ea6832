/*
 * GenMC client for the FIFO queue's batch take (src/queue/fifo_queue.h,
 * spool__fifo_queue_try_take_n; fifo.md), under RC11 and IMM,
 * on the real code built with a first segment of 1 slot and segments of at
 * most 2 (fifo_client.h, shared with fifo_segments.c).
 *
 * The owner (main) pushes CALLS (4) calls, each with a plain payload behind
 * its argument.  After calls 0 and 1 it hands two references to taker A
 * (one release store, as a ticket's push on a deque hands all its
 * references at once); after call 2, one to taker B; it spends the
 * reference to call 3 itself, right after its push.  A takes its two with
 * batch takes (up to 2 calls per claim, a second claim for what the first
 * left), racing B's single take and the owner's: so a batch meets the end
 * of the first segment (it must stop there), claims two calls of the
 * second, or claims call 3, whose slot may be the reused one of call 1.
 * Every take checks the call's function and payload and counts it; at the
 * end every call was taken exactly once.
 *
 * A lost race's retry is left out (__VERIFIER_assume): it is the same try
 * again.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   fifo-front-relaxed  (a taker's load of
 *        front: a batch reads a call before its push is seen)
 *   fifo-batch-past-segment  (a batch not stopped at its
 *        segment's end: it reads slots past it, another call's)
 *   fifo-batch-moves-front-by-one  (a batch that reads k calls but
 *        moves front by one: the others are taken twice)
 *   fifo-drained-relaxed  (the owner's
 *        look at front before it reuses a slot or frees a drained segment:
 *        GenMC finds a batch reading a freed segment), under RC11 only, as
 *        in fifo_segments.c
 */
#include "fifo_client.h"

static atomic_int handed_a, handed_b; /* references handed over */

/* Takes of each thread (0: A, 1: B, 2: the owner), into globals: GenMC 0.11
 * took an inlined local's end of lifetime for a free (fifo_segments.c). */
static spool__fifo_call_t out[3][2];

/* Spends n references of thread who with batch takes of up to n calls. */
static void take_batches(int who, size_t n)
{
    while (n > 0) {
        size_t k = spool__fifo_queue_try_take_n(&queue, out[who], n);
        __VERIFIER_assume(k > 0);
        assert(k <= n);
        for (size_t i = 0; i < k; i++)
            check_taken(&out[who][i]);
        n -= k;
    }
}

static void *taker_a(void *arg)
{
    (void)arg;
    /* Acquire pairs with the owner's release store: the ticket's hand-over. */
    __VERIFIER_assume(atomic_load_explicit(&handed_a, memory_order_acquire) == 2);
    take_batches(0, 2);
    return NULL;
}

static void *taker_b(void *arg)
{
    (void)arg;
    /* Acquire pairs with the owner's release store, as above. */
    __VERIFIER_assume(atomic_load_explicit(&handed_b, memory_order_acquire) == 1);
    __VERIFIER_assume(spool__fifo_queue_try_take(&queue, &out[1][0]));
    check_taken(&out[1][0]);
    return NULL;
}

int main(void)
{
    assert(spool__fifo_queue_init(&queue) == 0);
    pthread_t a, b;
    pthread_create(&a, NULL, taker_a, NULL);
    pthread_create(&b, NULL, taker_b, NULL);
    push(0);
    push(1);
    /* Release pairs with A's acquire load: both calls' pushes before. */
    atomic_store_explicit(&handed_a, 2, memory_order_release);
    push(2);
    /* Release pairs with B's acquire load. */
    atomic_store_explicit(&handed_b, 1, memory_order_release);
    push(3);
    take_batches(2, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    check_each_taken_once();
    spool__fifo_queue_destroy(&queue);
    return 0;
}
