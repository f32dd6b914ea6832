/*
 * GenMC client for the fast paths' window (src/deque/deque.h, deque.md, I5), under RC11 and IMM: the owner's fast push and pop reach a slot
 * through base, valid for the indices of one lap of the buffer, and a slow
 * pop that takes bottom below the lap moves the window down
 * (spool__deque_window_down), putting the alert in limit with an exchange,
 * which keeps a thief's alert in that thief's release sequence.
 *
 * main first brings the deque, alone, to: J2 and J3 public at indices 2 and
 * 3, J4 private at 4, the buffer grown to 4 slots and the window [4, 8)
 * (pushes and its own steals of J0 and J1, so that top is 2).  Then one
 * thief steals once while main pops J4 (fast), pops J3 (the public pop,
 * with J2 left: the window moves down to [0, 4)) and pushes J5 at index 3.
 * If the thief takes J2, the last public job, its alert must survive the
 * window's move, so that J5's push publishes.  After the thief is joined,
 * main checks rule 1 as push_alert.c does, then pops the rest; every job
 * must have been taken exactly once, its plain payload seen.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   deque-window-limit-store (the window's limit stored plainly:
 *                                       the alert is overwritten)
 *   deque-no-window-down     (the window left above bottom: J5's
 *                                       fast push misses its slot)
 */
#define THIEVES 1
#define JOBS 6
#define DEQUE_CLIENT_OWNER 1
#define DEQUE_CLIENT_PLAIN 1
#include "deque_client.h"

int main(void)
{
    spool__deque_init(&deque);
    for (int i = 0; i < JOBS; i++)
        jobs[i].payload = i + 1;
    /* Alone: J0 and J1 pushed (each published: no public job was left)
     * and stolen by main, J2 and J3 pushed and published, J4 private. */
    owner_push(&jobs[0].base);
    try_steal();
    owner_push(&jobs[1].base);
    owner_push(&jobs[2].base);
    try_steal();
    owner_push(&jobs[3].base);
    owner_push(&jobs[4].base);
    assert(atomic_load_explicit(&deque.top, memory_order_relaxed) == 2 &&
           atomic_load_explicit(&deque.split, memory_order_relaxed) == 4 &&
           atomic_load_explicit(&deque.bottom, memory_order_relaxed) == 5 && deque.lap == 4);

    pthread_t thread;
    pthread_create(&thread, NULL, thief, NULL);
    spool__job_t *job = owner_pop();
    assert(job == &jobs[4].base);
    take(job);
    if ((job = owner_pop()) != NULL)
        take(job);
    owner_push(&jobs[5].base);
    pthread_join(thread, NULL);

    check_alert_rule();
    while ((job = owner_pop()) != NULL)
        take(job);
    check_each_taken_once();
    return 0;
}
