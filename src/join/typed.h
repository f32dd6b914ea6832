/* Internal: typed tasks' shared parts (typed.c), for typed_frames.c. */
#ifndef SPOOL_JOIN_TYPED_H
#define SPOOL_JOIN_TYPED_H

#include "spool.h"
#include "spool_typed.h"

/* Names the task and aborts: "typed task NAME: WHAT". */
_Noreturn void spool__typed_abort(const char *what, const char *name);

/* SPOOL_RUN (in 0, pool NULL) and SPOOL_RUN_IN (in 1): fn(frame) in the
 * current pool (on a worker: here), the global pool or pool, else on the
 * caller alone. */
void spool__typed_run_in(spool_pool_t *pool, int in, spool_fn fn, void *frame);

#endif
