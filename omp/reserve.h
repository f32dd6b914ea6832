/* Internal: threads of libspool-omp's own, for a team that must have more
 * threads than its pool can lend (dyn-var false; omp.md, "Teams"). */
#ifndef SPOOL_OMP_RESERVE_H
#define SPOOL_OMP_RESERVE_H

#include <stdbool.h>

/* Runs fn(arg) on a reserve thread (one that is free, or a new one).  False
 * if none could be had. */
bool spool__omp_reserve_run(void (*fn)(void *), void *arg);

#endif
