/* Internal: OMP_DISPLAY_AFFINITY and the affinity format (api.c). */
#ifndef SPOOL_OMP_AFFINITY_H
#define SPOOL_OMP_AFFINITY_H

#include "base.h"

/* affinity-format-var as the environment set it. */
const char *spool__omp_affinity_format(void);
/* OMP_DISPLAY_AFFINITY: the calling thread, starting its implicit task,
 * shows its line if its place in the team's tree changed. */
void spool__omp_affinity_note(spool__omp_thread_t *thr);

#endif
