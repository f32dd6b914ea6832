/*
 * The GenMC clients of libspool-omp's protocols (omp_barrier.c,
 * omp_join.c, omp_task_wake.c, omp_wait.c) compile omp/barrier.c itself; this is what
 * it calls elsewhere (a team's task queues are one flag here: a task is
 * queued while it is 1, and a thread takes it by a CAS to 0), and a park that spins on a flag instead of sleeping on a
 * condition variable (which GenMC does not model).  A park's set-up is a
 * plain field, so that a set not ordered after it is a data race; a wait
 * that is never set is a thread blocked for good, which check.sh's
 * --check-liveness for these clients reports; a park set twice fails the
 * clients' last check.
 */
#ifndef SPOOL_GENMC_OMP_STUBS_H
#define SPOOL_GENMC_OMP_STUBS_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

/* The C11 fence, not inline assembly, which GenMC drops (atomics.h). */
#define SPOOL__MODEL_CHECK 1

/* GenMC's pthread.h has no condition variables, which the latches in
 * lend.h's park name: a stand-in type, never used here. */
typedef struct {
    int unused;
} pthread_cond_t;

#include "omp/barrier.c"

spool__omp_env_t spool__omp_env = {.wait_policy = 0, .cpus = 4}; /* passive: park at once */

/* The team's task queues (task.c), as one flag, and the task's effect. */
static _Atomic int model_queued;
static _Atomic int model_ran;

bool spool__omp_task_help(spool__omp_team_t *team, unsigned id)
{
    int one = 1;
    /* Acquire: as the queue's lock, after the maker's push. */
    if (!atomic_compare_exchange_strong_explicit(&model_queued, &one, 0, memory_order_acquire,
                                                 memory_order_relaxed))
        return false;
    /* Release: the maker waits for the task's effect. */
    atomic_store_explicit(&model_ran, 1, memory_order_release);
    spool__omp_barrier_task_done(team, id);
    return true;
}

bool spool__omp_task_may_run(const void *task, const void *anc)
{
    (void)task;
    (void)anc;
    return true;
}

bool spool__omp_task_queued(spool__omp_team_t *team, unsigned id, const void *anc)
{
    (void)team;
    (void)id;
    (void)anc;
    return atomic_load_explicit(&model_queued, memory_order_relaxed) != 0;
}

_Noreturn void spool__omp_fatal(const char *fmt, ...)
{
    (void)fmt;
    abort();
}

int spool__park_init(spool__park_t *p)
{
    p->blocking = true; /* plain: the set-up */
    atomic_init(&p->spin.core.state, 0);
    return 0;
}

void spool__park_set(spool__park_t *p)
{
    assert(p->blocking); /* a data race unless ordered after the set-up */
    /* Release: as the latch's set (latch.h). */
    atomic_fetch_add_explicit(&p->spin.core.state, 1, memory_order_release);
}

void spool__park_wait(spool__park_t *p)
{
    /* Acquire pairs with the release in spool__park_set, as a latch's. */
    while (atomic_load_explicit(&p->spin.core.state, memory_order_acquire) == 0)
        ;
}

void spool__park_destroy(spool__park_t *p)
{
    (void)p;
}

/* No jobs run in a model's park: the thread's OpenMP state is not saved. */
void spool__omp_park_wait(spool__park_t *p)
{
    spool__park_wait(p);
}

/* A team of n threads over members. */
static void model_team(spool__omp_team_t *team, spool__omp_member_t *members, unsigned n)
{
    team->nthreads = n;
    team->members = members;
    for (unsigned i = 0; i < n; i++)
        members[i].id = i;
}

/* A barrier waiter's one park for generation g (what the barrier's wait
 * loop does once its spin is over). */
static void barrier_park(spool__omp_team_t *team, unsigned id, unsigned g)
{
    barrier_wait_t w = {&team->bar, g};
    spool__omp_park(team, id, &team->bar, true, NULL, barrier_ready, &w);
}

/* At the end: no park was set twice. */
static void check_parks(spool__omp_team_t *team, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        assert(atomic_load_explicit(&team->members[i].park.spin.core.state,
                                    memory_order_relaxed) <= 1);
}

#endif
