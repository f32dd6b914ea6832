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
};

#endif
