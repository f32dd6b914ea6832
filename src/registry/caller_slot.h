/* Internal: taking and giving back the caller slot (caller.h), alone, for
 * model/genmc/caller_slot.c. */
#ifndef SPOOL_CALLER_SLOT_H
#define SPOOL_CALLER_SLOT_H

#include <stdbool.h>

#include "platform/atomics.h"

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

#endif
