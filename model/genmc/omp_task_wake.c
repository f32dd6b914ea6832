/*
 * GenMC client for libspool-omp's task wake-up at a barrier (omp/barrier.c,
 * spool__omp_barrier_task_wake and park(); omp.md, "Tasks", T2), under
 * RC11 and IMM: a waiter at a barrier must not sleep through a task queued
 * for it.  A team of two: thread 1 has arrived and parks (passive: no spin
 * first); thread 0 has not arrived, queues a task and waits for its effect
 * without running it (as a thread does whose own wait runs only its
 * descendants).  Checked: the waiter wakes and runs the task (else both
 * wait for good, which --check-liveness reports), and its park is set at
 * most once.
 *
 * Mutants (model/genmc/mutants), which must be rejected:
 *   omp-task-wake-unfenced   the queuing thread has no seq-cst fence before
 *                            it looks for parked waiters
 *   omp-task-park-unfenced   the waiter has no seq-cst fence before it
 *                            looks at the queues
 *   omp-task-no-wake         the queuing thread never looks for waiters
 */
#include "omp_stubs.h"

static spool__omp_team_t team;
static spool__omp_member_t members[2];

static void *waiter(void *arg)
{
    (void)arg;
    if (!spool__omp_task_help(&team, 1)) {
        barrier_park(&team, 1, 0);
        /* Woken, or it saw the task before it slept: the task is queued. */
        bool ran = spool__omp_task_help(&team, 1);
        assert(ran);
    }
    return NULL;
}

int main(void)
{
    model_team(&team, members, 2);
    spool__omp_barrier_init(&team.bar);
    /* Thread 1 has arrived. */
    atomic_store_explicit(&team.bar.state, 1, memory_order_relaxed);
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    /* Thread 0 makes a task and queues it (relaxed: the queue's own word,
     * written under its lock in task.c), then looks for waiters. */
    spool__omp_barrier_task_add(&team);
    atomic_store_explicit(&model_queued, 1, memory_order_relaxed);
    spool__omp_barrier_task_wake(&team, 0, &model_queued);
    /* Acquire: pairs with the task's release in the stub. */
    while (atomic_load_explicit(&model_ran, memory_order_acquire) == 0)
        ;
    pthread_join(t, NULL);
    check_parks(&team, 2);
    /* The task is complete, the barrier still waits for thread 0. */
    assert(atomic_load_explicit(&team.bar.state, memory_order_relaxed) == 1);
    return 0;
}
