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
    /* Credits (deque.md, "Scope counts"): spawns by local_worker, the
     * worker that runs the scope, are not counted on the latch while they
     * are private; local says how many are.  local_worker is set once, at
     * init (NULL: no credits), and any spawner compares it; local_open
     * (false once the scope's end stops taking local spawns) and local are
     * touched by local_worker only. */
    spool__worker_t *local_worker;
    bool local_open;
    size_t local;
};

#endif
