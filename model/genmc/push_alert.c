/*
 * GenMC client for the push alert (src/deque/deque.h, deque.md, rule 1), under
 * RC11 and IMM: the owner's fast push tests only limit, and whoever empties
 * the public part stores the alert there, so that the next push publishes.
 * What must hold: once the public part is empty and private jobs are left,
 * the alert is up (else the private jobs stay hidden from an idle worker
 * until a demand).  The owner (main) pushes JOBS jobs as join does
 * (deque_client.h: the fast private push, else the slow one and publish if
 * wanted) on a deque of capacity 2: the first push takes back the initial
 * alert and publishes, the second is private, the third takes the slow path
 * (the buffer looks full) and takes back limit with its exchange.  One thief
 * steals once, racing those pushes; taking the public job raises the alert.
 * After the thief is joined, main checks that rule, then pops the rest;
 * every job must have been taken exactly once, its plain payload seen.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   deque-no-alert          (a thief taking the last job alerts no one)
 *   deque-limit-reset-store (limit taken back with a plain store:
 *                                       a thief's alert is overwritten)
 *   deque-limit-reset-relaxed (the exchange
 *                                       sees the alert but not the steal)
 *   deque-alert-relaxed (likewise, the thief's side)
 */
#define THIEVES 1
#define DEQUE_CLIENT_OWNER 1
#define DEQUE_CLIENT_PLAIN 1
#include "deque_client.h"

int main(void)
{
    spool__deque_init(&deque);
    pthread_t thread;
    pthread_create(&thread, NULL, thief, NULL);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].payload = i + 1;
        owner_push(&jobs[i].base);
    }
    pthread_join(thread, NULL);
    check_alert_rule();
    spool__job_t *job;
    while ((job = owner_pop()) != NULL)
        take(job);
    check_each_taken_once();
    return 0;
}
