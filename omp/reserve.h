/* Internal: threads of libspool-omp's own, for a team that must have more
 * threads than its pool can lend (dyn-var false; omp.md, "Teams").  A
 * reserve thread is bound to one member slot of one team, so that thread
 * number k of that team's regions is the same thread region after region
 * (threadprivate data persists, as OpenMP asks when dyn-var is false). */
#ifndef SPOOL_OMP_RESERVE_H
#define SPOOL_OMP_RESERVE_H

#include <stdbool.h>

typedef struct spool__omp_reserve spool__omp_reserve_t;

/* Runs fn(arg) on the reserve thread bound to *slot, binding one first (a
 * free one, or a new one) if *slot is NULL or was made before a fork().
 * The caller posts again only after fn's last access to what it shares
 * (the region's end).  False if no thread could be had. */
bool spool__omp_reserve_run(spool__omp_reserve_t **slot, void (*fn)(void *), void *arg);

/* Unbinds the reserve threads of slots[0 .. n-1] (a team's leader has
 * exited): they serve other teams from now on. */
void spool__omp_reserve_release(spool__omp_reserve_t **slots, unsigned n);

#endif
