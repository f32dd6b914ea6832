/* Internal: the word lock under libspool-omp's locks and critical
 * sections (lock.c). */
#ifndef SPOOL_OMP_LOCK_H
#define SPOOL_OMP_LOCK_H

#include "base.h"

/* A word lock: 0 free, 1 held, 2 held with waiters (futex on Linux). */
void spool__omp_lock_word(_Atomic int *w);
void spool__omp_unlock_word(_Atomic int *w);

#endif
