/* Internal: work isolation (isolate.c, isolate.md). */
#ifndef SPOOL_ISOLATE_H
#define SPOOL_ISOLATE_H

#include "latch.h"

struct spool__worker;

/* The wait loop of worker w (the caller) while its context has an
 * isolation region: runs only that region's jobs until latch is set. */
void spool__isolated_wait(struct spool__worker *w, spool__core_latch_t *latch);

#endif
