/*
 * GenMC client for libspool-omp's barrier (omp/barrier.c; omp.md,
 * "Barriers"), under RC11 and IMM: the waiters' registration against the
 * last thread's new generation.  A team of three: threads 1 and 2 have
 * arrived and park (passive: no spin first), each with data it wrote
 * before its arrival; thread 0 arrives last, bumps the generation, and
 * claims and sets the parks of the registered waiters.  Checked: a park
 * is set only after it was set up (B2's publication; a data race
 * otherwise), every park waited on is set (B1: a lost wake-up blocks a
 * waiter for good, which --check-liveness reports), and none twice (B2).  (A waiter's own loop around its park, which looks
 * at the generation again, is not bounded: it is not run here.)
 *
 * Mutants (model/genmc/mutants), which must be rejected:
 *   omp-park-relaxed       the registration is a relaxed store
 *   omp-sleepers-relaxed   the count of registered waiters is relaxed
 *   omp-gen-release        the new generation is a release store, not seq-cst
 *   omp-no-release-look    the last thread never looks for parked waiters
 */
#include "omp_stubs.h"

static spool__omp_team_t team;
static spool__omp_member_t members[3];

static void *waiter(void *arg)
{
    /* Arrived (the count is set up so); it parks for generation 0. */
    barrier_park(&team, (unsigned)(uintptr_t)arg, 0);
    return NULL;
}

int main(void)
{
    model_team(&team, members, 3);
    spool__omp_barrier_init(&team.bar);
    atomic_store_explicit(&team.bar.state, 2, memory_order_relaxed);
    pthread_t t[2];
    for (unsigned i = 1; i <= 2; i++)
        pthread_create(&t[i - 1], NULL, waiter, (void *)(uintptr_t)i);
    /* Thread 0 arrives last. */
    assert(!spool__omp_barrier_wait(&team, 0));
    for (unsigned i = 1; i <= 2; i++)
        pthread_join(t[i - 1], NULL);
    check_parks(&team, 3);
    assert(atomic_load_explicit(&team.bar.gen, memory_order_relaxed) == 1);
    return 0;
}
