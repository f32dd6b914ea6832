/*
 * GenMC client for spool_fork_inline / spool_sync_inline's pop at the
 * fork's index (include/spool_inline.h, deque.md), under
 * RC11 and IMM.  The sync pops the fork's job privately only if bottom is
 * the fork's index + 1, the index is at least floor, and the job is still
 * in its slot; else it pops the slow way, as join_finish does: a job left
 * above it is run, and a stolen job is not popped at all.
 *
 * Phase 1, racing one thief that tries twice (a try that finds no public
 * job raises demand): main forks J0 (public: no public job was left) and
 * J1, then syncs J1 and J0.  Phases 2 and 3, alone, after the thief is
 * joined: J2 forked (public, and it stays below the rest, so that they are
 * private), J3 forked, J4 pushed and left there (by the fork's own half),
 * then J3's sync must pop J4 first; J5 forked, popped and run by main
 * itself (as a waiting owner may), J6 pushed at J5's index, then J5's sync
 * must find J6, not J5; then J2's sync.  Every job must be taken exactly
 * once, its plain payload seen.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   sync-pop-no-floor-test  (no floor test: a public job popped
 *                                    as private, which a thief may take too)
 *   sync-pop-no-bottom-test  (no bottom test: J4 lost)
 *   sync-pop-no-slot-test  (no slot test: J5 run twice, J6 lost)
 */
#define THIEVES 1
#define JOBS 7
#define DEQUE_CLIENT_OWNER 1
#define DEQUE_CLIENT_PLAIN 1
#include "deque_client.h"

/* spool_fork_inline: the fast push at its index, else the slow push (at
 * the same index). */
static int64_t fork_job(spool__job_t *job)
{
    int64_t index;
    if (!spool__deque_push_private_at(&deque, job, &index)) {
        assert(spool__deque_push(&deque, job));
        if (spool__deque_wants_publish(&deque))
            client_publish();
    }
    return index;
}

/* spool_sync_inline: the pop at the index, else join_finish's loop: pop
 * the slow way and run what comes up (jobs left above the fork's job)
 * until the fork's job comes up, has run, or is gone (stolen). */
static void sync_job(spool__job_t *job, int64_t index)
{
    if (spool__deque_pop_private_at(&deque, index, job)) {
        take(job);
        return;
    }
    test_job_t *j = (test_job_t *)job;
    for (;;) {
        spool__job_t *popped = spool__deque_pop(&deque);
        if (spool__deque_demanded(&deque))
            client_publish();
        if (popped == NULL)
            return; /* stolen */
        take(popped);
        if (popped == job || atomic_load_explicit(&j->taken, memory_order_relaxed) != 0)
            return;
    }
}

int main(void)
{
    spool__deque_init(&deque);
    for (int i = 0; i < JOBS; i++)
        jobs[i].payload = i + 1;
    pthread_t thread;
    pthread_create(&thread, NULL, thief, &thread);
    int64_t i0 = fork_job(&jobs[0].base);
    int64_t i1 = fork_job(&jobs[1].base);
    sync_job(&jobs[1].base, i1);
    sync_job(&jobs[0].base, i0);
    pthread_join(thread, NULL);

    /* J2 public below the rest, so that J3 to J6 are private. */
    int64_t i2 = fork_job(&jobs[2].base);
    int64_t i3 = fork_job(&jobs[3].base);
    owner_push(&jobs[4].base);
    sync_job(&jobs[3].base, i3);

    int64_t i5 = fork_job(&jobs[5].base);
    spool__job_t *own = owner_pop();
    assert(own == &jobs[5].base);
    take(own);
    owner_push(&jobs[6].base);
    sync_job(&jobs[5].base, i5);
    sync_job(&jobs[2].base, i2);

    assert(owner_pop() == NULL);
    check_each_taken_once();
    return 0;
}
