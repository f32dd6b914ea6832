/* Internal: a team's barrier, its region's end, and the parks of its
 * threads (barrier.c; omp.md, "Barriers", "Waits"). */
#ifndef SPOOL_OMP_BARRIER_H
#define SPOOL_OMP_BARRIER_H

#include "base.h"

/* A team's barrier (barrier.c; omp.md, "Barriers"): its state is the
 * threads arrived (low half) and the team's implicit tasks with explicit
 * descendants alive (high half, SPOOL_OMP_TASK_ONE each), so that the one
 * change that makes both complete is seen by exactly one thread. */
#define SPOOL_OMP_TASK_ONE (1ull << 32)
typedef struct spool__omp_barrier {
    SPOOL_OMP_ALIGNED _Atomic unsigned long long state;
    SPOOL_OMP_ALIGNED _Atomic unsigned gen;
    _Atomic unsigned sleepers; /* threads registered to park, or parked */
    _Atomic unsigned idle;     /* of them, in a wait that may run any task */
    _Atomic bool cancelled;    /* cancel parallel: barriers return at once */
} spool__omp_barrier_t;

void spool__omp_barrier_init(spool__omp_barrier_t *b);
/* The calling thread (thread id of team) arrives and waits for the rest.
 * True if the team's barriers were cancelled (cancel parallel). */
bool spool__omp_barrier_wait(spool__omp_team_t *team, unsigned id);
/* An implicit task of team has its first explicit descendant alive (made
 * by a thread that has not arrived, or by a task not complete), and one
 * has its last freed (by any thread: self is its id in team, or
 * UINT_MAX); the last completes the barrier if every thread has arrived. */
void spool__omp_barrier_task_add(spool__omp_team_t *team);
void spool__omp_barrier_task_done(spool__omp_team_t *team, unsigned self);
/* Implicit tasks of team with explicit descendants alive (a snapshot). */
unsigned long spool__omp_barrier_tasks(spool__omp_team_t *team);
/* Task task was queued: wakes one thread parked in a wait that may run it
 * (self: the caller's id, or UINT_MAX).  The caller's queue write precedes
 * it. */
void spool__omp_barrier_task_wake(spool__omp_team_t *team, unsigned self, const void *task);
/* Thread id cancels the team's barriers: waiters return true from now on. */
void spool__omp_barrier_cancel(spool__omp_team_t *team, unsigned id);
/* The end of a region: a member is done (its last access to team), and
 * thread 0 waits until every member is. */
void spool__omp_join_arrive(spool__omp_team_t *team);
void spool__omp_join_wait(spool__omp_team_t *team);
/* The spin before a thread of a team of n parks. */
unsigned long spool__omp_spin_count(unsigned n);

/* What a parked waiter waits for: ready(arg), with seq-cst loads. */
typedef bool (*spool__omp_ready_fn)(const void *arg);
/* One park of thread id of team (omp.md, "Waits"): it registers on obj and
 * sleeps unless ready(arg) holds or, with tasks, the team has a queued task
 * it may run (a descendant of anc; anc NULL: any); its caller looks again
 * when it returns (a park may be set early, never late). */
void spool__omp_park(spool__omp_team_t *team, unsigned id, const void *obj, bool tasks,
                     const void *anc, spool__omp_ready_fn ready, const void *arg);
/* After a seq-cst write that may make a wait on obj ready: sets the parks
 * of the team's threads registered on obj (self: the caller's id, or
 * UINT_MAX). */
void spool__omp_wake(spool__omp_team_t *team, unsigned self, const void *obj);

#endif
