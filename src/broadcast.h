/* Internal: broadcasts (broadcast.c), for isolated waiters (isolate.c). */
#ifndef SPOOL_BROADCAST_H
#define SPOOL_BROADCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

struct spool__worker;

/* Worker w's (the caller's) oldest queued broadcast made in isolation
 * region `region`, taken off its queue even if older ones of other regions
 * wait before it (they stay, in order); NULL if there is none. */
spool__job_t *spool__broadcast_take_region(struct spool__worker *w, uint64_t region);

/* Has worker w (the caller) a queued broadcast made in region? */
bool spool__broadcast_has_region(struct spool__worker *w, uint64_t region);

#endif
