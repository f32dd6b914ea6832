/*
 * GenMC client for the caller slot's hand-over (src/scheduler/caller_slot.h), under RC11
 * and IMM.  Two outside callers each try to take the slot; a holder
 * updates the slot worker's owner-only state (plain fields: the deque's
 * bottom and a cache count, as its worker would) and checks it finds them
 * as the last holder left them, then gives the slot back.  GenMC reports
 * a data race if a holder's plain accesses are not ordered after the last
 * holder's, and the assertions fail if two hold the slot at once.
 * (The sequencing of a holder's jobs is model/caller.pml's.)
 *
 * Mutants (model/genmc/mutants, run by check.sh), which must be rejected:
 *   caller-claim-relaxed     the claim's CAS is relaxed
 *   caller-release-relaxed   giving the slot back is a relaxed store
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#include "scheduler/caller_slot.h"

static atomic_int taken;
static long bottom, cached; /* the slot worker's owner-only fields */
static atomic_int holders;

static void *caller(void *arg)
{
    (void)arg;
    if (!spool__caller_claim(&taken))
        return NULL; /* hands off: touches nothing of the slot */
    assert(atomic_fetch_add_explicit(&holders, 1, memory_order_relaxed) == 0);
    assert(bottom == cached);
    bottom++;
    cached++;
    atomic_fetch_sub_explicit(&holders, 1, memory_order_relaxed);
    spool__caller_release(&taken);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, caller, NULL);
    caller(NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(bottom == cached);
    return 0;
}
