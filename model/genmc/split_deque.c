/*
 * GenMC client for the split deque's publication (src/deque/deque.h, deque.md),
 * under RC11 and IMM.  The owner (main) writes a plain payload into each of
 * JOBS jobs and pushes them as a worker does (spool__worker_push: private,
 * published when a thief asked or no public job is left), on a deque of
 * capacity 2 (the third push grows it), then pops as a worker does
 * (spool__worker_pop: publishing the rest if a thief asked meanwhile) until
 * the deque is empty.  THIEVES threads try to steal, the first twice (a
 * try that finds no public job raises demand).  Whoever takes a job reads its
 * payload (plain: GenMC reports a race if its publication did not order it)
 * and counts the take; at the end every job must have been taken exactly
 * once.  The owner pushes and pops as join does: the fast private push and
 * pop (spool__deque_push_private, _pop_private), else the slow ones.  The
 * first push is public and later ones private, so executions
 * cover private pops beside steals, publication on demand at a push or a
 * pop, and public pops racing steals for the last job.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   deque-publish-relaxed   (publication's store)
 *   deque-steal-split-relaxed (the thief's load)
 *   deque-pop-unfenced                         (public pop's fence)
 *   deque-private-slack      (the newest public job popped as private)
 * and for the demand in floor (deque.md): at the end, a
 * thief's asked flag must not be up without its demand in floor.
 *   deque-serve-store        (served with a plain store of floor)
 *   deque-clear-flag-first   (asked cleared before the exchange)
 *   deque-no-demand-in-floor (the thief raises asked only)
 *   deque-demand-store       (run with -disable-ipr; the thief's
 *                                        demand a plain store: the
 *                                        serving exchange may read another
 *                                        thief's and not order this one's asked)
 *   deque-serve-relaxed, and
 *   deque-demand-relaxed (no synchronisation
 *                                        between the demand and its service)
 */
#define DEQUE_CLIENT_OWNER 1
#define DEQUE_CLIENT_PLAIN 1
#include "deque_client.h"

int main(void)
{
    spool__deque_init(&deque);
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, i == 0 ? &t[i] : NULL);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].payload = i + 1;
        owner_push(&jobs[i].base);
    }
    spool__job_t *job;
    while ((job = owner_pop()) != NULL)
        take(job);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    /* Pop returned NULL: the deque was empty, or a thief won the last job. */
    check_each_taken_once();
    /* A thief's asked flag never stays up without its demand in floor: it
     * would keep later thieves from asking while the owner sees no demand. */
    if (atomic_load_explicit(&deque.asked, memory_order_relaxed) != 0)
        assert(atomic_load_explicit(&deque.floor, memory_order_relaxed) == SPOOL__DEQUE_DEMANDED);
    return 0;
}
