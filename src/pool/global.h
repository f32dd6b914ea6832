/* Internal: the global pool (global.c). */
#ifndef SPOOL_GLOBAL_H
#define SPOOL_GLOBAL_H

#include "spool.h"

/* The global pool, started on first use; NULL if it cannot be started. */
spool_pool_t *spool__global_pool(void);

#endif
