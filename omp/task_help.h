/* Internal: what a team's waiters call of its task queues (task_queue.c). */
#ifndef SPOOL_OMP_TASK_HELP_H
#define SPOOL_OMP_TASK_HELP_H

#include "base.h"

/* Runs one queued task of team that thread id may take: true if it ran one. */
bool spool__omp_task_help(spool__omp_team_t *team, unsigned id);
/* True if a thread waiting in task anc (NULL: at a barrier) may run task
 * (a descendant of anc). */
bool spool__omp_task_may_run(const void *task, const void *anc);
/* True if some queue of team holds a task that thread id, waiting in task
 * anc (NULL: at a barrier), would take (the caller fences first). */
bool spool__omp_task_queued(spool__omp_team_t *team, unsigned id, const void *anc);

#endif
