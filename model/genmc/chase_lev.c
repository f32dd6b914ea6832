/*
 * GenMC client for the Chase-Lev deque (src/deque/deque.h, src/deque/deque.c), under
 * RC11 and IMM: the public half of the split deque, as a job FIFO uses it
 * and as the owner's public pop races steals (split_deque.c checks the
 * private half and publication).  The owner (main) writes a plain payload
 * into each of JOBS jobs and pushes them as public jobs on a deque of capacity 2 (so the third push grows
 * it while thieves may be reading the old buffer), then pops until the
 * deque is empty; THIEVES threads steal once each, and once more after a
 * lost race.  Whoever takes a job reads its payload (plain: GenMC reports a
 * data race if the push did not publish it) and counts the take; at the end
 * every job must have been taken exactly once (a job both popped and
 * stolen, or lost, fails the assertion).
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   deque-publish-relaxed     (push's split store)
 *   deque-steal-split-relaxed (the thief's split load)
 *   deque-pop-unfenced                            (pop's fence gone)
 *   deque-steal-unfenced                          (the thief's fence gone)
 */
#include "deque_client.h"

/* One steal, and once more after a lost race (each thief runs it once). */
static void try_steal(void)
{
    spool__job_t *job;
    spool__steal_t r = spool__deque_steal(&deque, &job);
    if (r == SPOOL__STEAL_RETRY)
        r = spool__deque_steal(&deque, &job);
    if (r == SPOOL__STEAL_SUCCESS)
        take(job);
}

int main(void)
{
    spool__deque_init(&deque);
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, NULL);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].payload = i + 1;
        assert(spool__deque_push_public(&deque, &jobs[i].base));
    }
    spool__job_t *job;
    while ((job = spool__deque_pop(&deque)) != NULL)
        take(job);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    /* Pop returned NULL: the deque was empty, or a thief won the last job. */
    check_each_taken_once();
    return 0;
}
