/*
 * GenMC client for the end of a libspool-omp region (omp/barrier.c:
 * spool__omp_join_arrive, spool__omp_join_wait; omp.md, "Teams", step 5
 * and T3, T4), under RC11 and IMM.  Two members each write their result
 * (plain) and arrive; thread 0 waits for them (passive: it parks at once)
 * and then reads both results.  Checked: thread 0's park is set only
 * after it was set up, once, and always when thread 0 waits on it (T4; a
 * lost wake-up blocks thread 0 for good: --check-liveness); the results
 * are visible to thread 0 when it returns, parked or not (T3; a data race
 * otherwise).
 *
 * Mutants (model/genmc/mutants), which must be rejected:
 *   omp-join-arrive-relaxed   a member's decrement is relaxed
 *   omp-join-park-relaxed     thread 0's PARKED is a relaxed fetch-or
 *   omp-join-no-wake          the last member does not see PARKED
 */
#include "omp_stubs.h"

static spool__omp_team_t team;
static spool__omp_member_t members[3];
static int result[3];

static void *member(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    result[id] = (int)id * 7;
    spool__omp_join_arrive(&team);
    return NULL;
}

int main(void)
{
    model_team(&team, members, 3);
    atomic_init(&team.join, 2);
    pthread_t t[2];
    for (unsigned i = 1; i <= 2; i++)
        pthread_create(&t[i - 1], NULL, member, (void *)(uintptr_t)i);
    spool__omp_join_wait(&team);
    assert(result[1] == 7 && result[2] == 14);
    for (unsigned i = 1; i <= 2; i++)
        pthread_join(t[i - 1], NULL);
    check_parks(&team, 3);
    return 0;
}
