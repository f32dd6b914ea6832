/* Internal: a scope's state, for the modules that spawn into scopes. */
#ifndef SPOOL_SCOPE_H
#define SPOOL_SCOPE_H

#include <stdbool.h>

#include "registry.h"

struct spool_scope_s {
    /* One count for the body, one per pending spawn or scope broadcast. */
    spool__count_latch_t latch;
    spool_pool_t *registry;    /* NULL: no pool could be started; spawns run inline */
    spool__job_fifo_t **fifos; /* FIFO scopes: one per worker, made by its first spawn */
    bool fifo;
    /* In-place scopes: the body may block until its own spawns have run, so
     * a spawn by the body's worker is published at once. */
    bool publish_spawns;
    /* Credits (deque.md, "Scope counts"): spawns by local_owner, the worker
     * that runs the scope, are not counted on the latch while they are
     * private; local says how many are.  NULL once the scope's end stops
     * taking them.  Both touched by local_owner only. */
    spool__worker_t *local_owner;
    size_t local;
};

#endif
