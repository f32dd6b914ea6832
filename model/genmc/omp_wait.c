/*
 * GenMC client for libspool-omp's waits that sleep (omp/barrier.c:
 * spool__omp_park and spool__omp_wake; omp.md, "Waits", W1-W3), under RC11
 * and IMM: a wait on an object (a taskgroup's count, a task's children, an
 * ordered turn) against the thread whose seq-cst write makes it ready.  A
 * team of three: threads 1 and 2 each wait for a count of its own to reach
 * 0 (passive: they park at once); thread 0 writes data for each, then
 * drops each count with a seq-cst decrement (a completion's) and wakes the
 * waiters registered on it.  Checked: each waiter wakes (a lost wake-up
 * blocks it for good, which --check-liveness reports), is woken only by
 * its own object's waker or for nothing (its loop looks again), sees the
 * data written before its count's drop (a data race otherwise), and no
 * park is set twice.
 *
 * Mutants (model/genmc/mutants, and the client's own), which must be
 * rejected:
 *   omp-wake-relaxed     the waker's look at the registered count is relaxed
 *   omp-wake-no-look     the waker never looks for registered waiters
 *   -DWEAK_DROP          the drop is a release decrement, not seq-cst
 */
#include "omp_stubs.h"

static spool__omp_team_t team;
static spool__omp_member_t members[3];
static _Atomic unsigned long count[3];
static int data[3];

#ifdef WEAK_DROP
#define DROP_ORDER memory_order_release
#else
#define DROP_ORDER memory_order_seq_cst
#endif

static bool zero(const void *arg)
{
    /* Seq-cst, as the library's ready conditions (task_queue.c). */
    return atomic_load_explicit((_Atomic unsigned long *)arg, memory_order_seq_cst) == 0;
}

static void *waiter(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    /* The wait's loop, bounded: a park set early (W3) is looked at again;
     * two rounds cover a wake for nothing and then the real one. */
    for (int round = 0; round < 2 && !zero(&count[id]); round++)
        spool__omp_park(&team, id, &count[id], false, NULL, zero, &count[id]);
    assert(zero(&count[id]));
    assert(data[id] == (int)id);
    return NULL;
}

int main(void)
{
    model_team(&team, members, 3);
    spool__omp_barrier_init(&team.bar);
    atomic_init(&count[1], 1);
    atomic_init(&count[2], 1);
    pthread_t t[2];
    for (unsigned i = 1; i <= 2; i++)
        pthread_create(&t[i - 1], NULL, waiter, (void *)(uintptr_t)i);
    for (unsigned i = 1; i <= 2; i++) {
        data[i] = (int)i;
        atomic_fetch_sub_explicit(&count[i], 1, DROP_ORDER);
        spool__omp_wake(&team, 0, &count[i]);
    }
    for (unsigned i = 1; i <= 2; i++)
        pthread_join(t[i - 1], NULL);
    check_parks(&team, 3);
    return 0;
}
