/* Internal: taking and giving back the caller slot (caller.h), and the
 * looks at its broadcast queue around a hand-over (caller.md, H5 and H6),
 * alone, for model/genmc/caller_slot.c and model/genmc/slot_server.c. */
#ifndef SPOOL_CALLER_SLOT_H
#define SPOOL_CALLER_SLOT_H

#include <stdbool.h>

#include "platform/atomics.h"
#include "deque/deque.h"

/* Takes the slot whose flag is taken, if it is free.  True if taken. */
static inline bool spool__caller_claim(atomic_int *taken)
{
    int free_slot = 0;
    /* Acquire pairs with the previous holder's release in
     * spool__caller_release: its plain writes to the slot's worker (the
     * deque's owner fields, caches, context stack) happen before ours.
     * The relaxed look first keeps a held slot's line shared. */
    return atomic_load_explicit(taken, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(taken, &free_slot, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* The holder gives the slot back. */
static inline void spool__caller_release(atomic_int *taken)
{
    /* Release pairs with the next holder's acquire CAS in
     * spool__caller_claim. */
    atomic_store_explicit(taken, 0, memory_order_release);
}

/* Has the slot whose flag is taken runs on its broadcast queue while
 * nobody holds it?  Relaxed: a hint, or ordered by the caller's fence.
 * The look is at split, as a take's is: a look that saw a run makes the
 * take after it see that run (a push stores bottom before split). */
static inline bool spool__slot_has_free_runs(atomic_int *taken, spool__deque_t *queue)
{
    return spool__deque_has_public(queue) &&
           atomic_load_explicit(taken, memory_order_relaxed) == 0;
}

/* The holder gives the slot back and looks at its queue once more: a run
 * queued after the holder's last take, whose server (or worker) found the
 * slot held, is the releaser's.  True if it took the slot again to serve
 * it. */
static inline bool spool__caller_release_look(atomic_int *taken, spool__deque_t *queue)
{
    spool__caller_release(taken);
    /* ReleaseFence: pairs with the server's ServerFence
     * (spool__slot_server_look) and, without a server, with the
     * broadcaster's PushFence and the sleepers' SleepFence (wait.md):
     * either this look sees the run, or the other side sees the slot free. */
    spool__fence_seq_cst();
    return spool__deque_has_public(queue) && spool__caller_claim(taken);
}

/* The slot's server, woken after a broadcast queued a run (its lock made
 * the push visible): is the slot free with runs to serve? */
static inline bool spool__slot_server_look(atomic_int *taken, spool__deque_t *queue)
{
    /* ServerFence: pairs with the releaser's ReleaseFence
     * (spool__caller_release_look): if this look finds the slot held, its
     * holder's look after giving it back sees the run. */
    spool__fence_seq_cst();
    return spool__slot_has_free_runs(taken, queue);
}

#endif
