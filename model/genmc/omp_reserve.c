/*
 * GenMC client for a reserve thread's hand-over (omp/reserve_post.h;
 * omp.md, "Teams"), under RC11 and IMM: the team's leader posts a member's
 * task, twice, to a reserve thread that waits between tasks in its park
 * (passive: it registers at once).  The first post's claim may come late,
 * after the thread took its task without parking and registered for the
 * second: a park set for nothing, which the thread's loop looks past.
 * Checked: the thread runs each task
 * (a lost wake-up blocks it for good, which --check-liveness reports), sees
 * what the leader wrote before each post (a data race otherwise), and its
 * park is set at most once per wait.
 *
 * Mutants (model/genmc/mutants), which must be rejected:
 *   omp-reserve-post-relaxed   the post's store of posted is relaxed
 *   omp-reserve-park-relaxed   the thread's registration is relaxed
 *   omp-reserve-no-claim       the leader never claims a registered thread
 *   omp-reserve-claim-acq-rel  the leader's claim is acq_rel, not seq-cst
 *                              (the store-buffer pair needs it: it was so
 *                              once, and this client found the lost wake-up)
 */
#include "omp_stubs.h"

#include "omp/reserve_post.h"

static spool__omp_reserve_t r;
static int payload[2];
static _Atomic int ran;

static void task(void *arg)
{
    int *p = arg;
    assert(*p == 7);
    /* Release: the leader posts the next task after it sees this one ran
     * (a region's end, in the library). */
    atomic_fetch_add_explicit(&ran, 1, memory_order_release);
}

static void *reserve(void *arg)
{
    (void)arg;
    for (unsigned long done = 0; done < 2; done++) {
        /* The thread's loop of park rounds (passive: no spin first),
         * bounded: a park set early, by the last post's late claim of this
         * registration, is looked at again; two rounds cover that and the
         * real one.  Acquire: pairs with the post's seq-cst store. */
        for (int round = 0;
             round < 2 && atomic_load_explicit(&r.posted, memory_order_acquire) == done; round++)
            spool__omp_reserve_park(&r, done);
        assert(atomic_load_explicit(&r.posted, memory_order_acquire) != done);
        r.fn(r.arg);
        assert(atomic_load_explicit(&r.park.spin.core.state, memory_order_relaxed) <= 1);
    }
    return NULL;
}

int main(void)
{
    atomic_init(&r.posted, 0);
    atomic_init(&r.parked, 0);
    pthread_t t;
    pthread_create(&t, NULL, reserve, NULL);
    for (int k = 0; k < 2; k++) {
        payload[k] = 7;
        spool__omp_reserve_post(&r, task, &payload[k]);
        /* Acquire: pairs with the task's release (the region's end). */
        while (atomic_load_explicit(&ran, memory_order_acquire) != k + 1)
            ;
    }
    pthread_join(t, NULL);
    return 0;
}
