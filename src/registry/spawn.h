/* Internal: detached spawns (spawn.c). */
#ifndef SPOOL_SPAWN_H
#define SPOOL_SPAWN_H

#include "registry/job_fifo.h"

/* What a worker's own FIFO (detached spool_spawn_fifo) runs; its context is
 * the pool. */
extern const spool__fifo_ops_t spool__spawn_fifo_ops;

#endif
