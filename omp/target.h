/* The device constructs on the host (target.c). */
#ifndef SPOOL_OMP_TARGET_H
#define SPOOL_OMP_TARGET_H

/* OMP_TARGET_OFFLOAD's values. */
enum { SPOOL_OMP_OFFLOAD_DEFAULT, SPOOL_OMP_OFFLOAD_MANDATORY, SPOOL_OMP_OFFLOAD_DISABLED };

/* OMP_TARGET_OFFLOAD as the process's environment has it now (an unknown
 * value is DEFAULT). */
int spool__omp_target_offload(void);

#endif
