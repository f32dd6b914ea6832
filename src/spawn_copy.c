/* Copying spawns: spool_scope_spawn_copy.  The argument is copied into a
 * block of its own (recycled per worker as spawn blocks are, or one malloc
 * for a large one), and the job spawned is an ordinary scope spawn of
 * copy_run with that block: a plain spawn pays nothing for copies. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scope.h"
#include "test_hooks.h"

#include "worker.h"

typedef struct copy_block {
    spool_scope_fn fn;
    spool_pool_t *pool; /* whose depot it goes back to; NULL: malloc'd */
    size_t size;
    union {
        max_align_t align; /* as malloc's: the copy may hold any type */
        unsigned char bytes[SPOOL_SPAWN_COPY_INLINE];
    } data;
} copy_block_t;

/* A large copy: the same header, then size bytes. */
#define COPY_HEADER offsetof(copy_block_t, data)

static copy_block_t *copy_alloc(spool_pool_t *pool, size_t size)
{
    if (spool__test_spawn_alloc_fails())
        return NULL;
    if (size > SPOOL_SPAWN_COPY_INLINE) {
        copy_block_t *c = malloc(COPY_HEADER + size);
        if (c != NULL)
            c->pool = NULL;
        return c;
    }
    spool__worker_t *w = spool__current_worker();
    copy_block_t *c = w != NULL && w->pool == pool
                          ? spool__block_get(&w->copy_blocks, &pool->copy_blocks, sizeof *c)
                          : spool__block_depot_get(&pool->copy_blocks, sizeof *c);
    if (c != NULL)
        c->pool = pool;
    return c;
}

static void copy_free(copy_block_t *c)
{
    spool_pool_t *pool = c->pool;
    if (pool == NULL) {
        free(c);
        return;
    }
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool)
        spool__block_put(&w->copy_blocks, &pool->copy_blocks, c, sizeof *c);
    else
        spool__block_depot_put(&pool->copy_blocks, c, sizeof *c);
}

void spool__copy_run(spool_scope_t *scope, void *arg)
{
    copy_block_t *c = arg;
    c->fn(scope, c->data.bytes);
    /* The scope (and so its pool's depot) lives until this job's count is
     * dropped, after this returns. */
    copy_free(c);
}

void spool__copy_drop(void *arg)
{
    copy_free(arg);
}

int spool_scope_spawn_copy(spool_scope_t *scope, spool_scope_fn fn, const void *arg, size_t size)
{
    if (scope == NULL || fn == NULL || (arg == NULL && size > 0))
        return EINVAL;
    if (size == 0)
        return spool_scope_spawn(scope, fn, NULL);
    if (spool__scope_dropping(scope))
        return ECANCELED;
    /* No pool (spawns run at once), or no memory: the job runs here, now,
     * on the caller's own block, which is valid for the whole call. */
    copy_block_t *c = scope->pool != NULL ? copy_alloc(scope->pool, size) : NULL;
    if (c == NULL)
        return spool__scope_run_at_spawn(scope, spool__current_worker(), fn, (void *)arg);
    c->fn = fn;
    c->size = size;
    memcpy(c->data.bytes, arg, size);
    int err = spool_scope_spawn(scope, spool__copy_run, c);
    if (err != 0) /* cancelled meanwhile: no job holds the copy */
        copy_free(c);
    return err;
}
