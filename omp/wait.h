/* Internal: waits that run no task (wait.c; omp.md, "Waits"). */
#ifndef SPOOL_OMP_WAIT_H
#define SPOOL_OMP_WAIT_H

#include "base.h"
#include "barrier.h"

/* Thread id of team (NULL: a thread in no team) waits until ready(arg),
 * registered on obj: it spins, then sleeps (omp.md, "Waits"). */
void spool__omp_wait(spool__omp_team_t *team, unsigned id, const void *obj,
                     spool__omp_ready_fn ready, const void *arg);
/* A thread in no team waits until ready(arg): spins, then sleeps
 * registered on obj; spool__omp_wake_outside(obj), after a seq-cst write
 * that may make it ready, wakes it. */
void spool__omp_wait_outside(const void *obj, spool__omp_ready_fn ready, const void *arg);
void spool__omp_wake_outside(const void *obj);

#endif
