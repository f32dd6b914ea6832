/* Copying spawns: spool_scope_spawn_copy.  The argument is copied into the
 * spawning worker's copy arena (copy_arena.h: a pointer bump, no lock), or
 * into one malloc of its own when it is large or the spawner is outside the
 * pool, and the job spawned is an ordinary scope spawn of spool__copy_run
 * with that copy: a plain spawn pays nothing for copies. */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "memory/copy_arena.h"
#include "scope/scope.h"
#include "platform/test_hooks.h"

#include "scheduler/worker.h"

typedef struct copy_block {
    spool_scope_fn fn;
    uint32_t heap; /* 1: its own malloc; 0: in a chunk of an arena */
    uint32_t pad;
    /* the copy follows, aligned as malloc's memory */
} copy_block_t;

_Static_assert(sizeof(copy_block_t) % SPOOL__COPY_ALIGN == 0 &&
                   alignof(max_align_t) <= SPOOL__COPY_ALIGN,
               "a copy follows its header aligned as malloc's memory");
_Static_assert(sizeof(copy_block_t) + SPOOL_SPAWN_COPY_INLINE <= SPOOL__COPY_CHUNK / 4,
               "copies are small beside a chunk");

static void *copy_data(copy_block_t *c)
{
    return c + 1;
}

static SPOOL__NOINLINE copy_block_t *copy_alloc_heap(size_t size)
{
    copy_block_t *c = malloc(sizeof *c + size);
    if (c != NULL)
        c->heap = 1;
    return c;
}

static inline copy_block_t *copy_alloc(spool_pool_t *pool, size_t size)
{
    if (SPOOL__UNLIKELY(spool__test_spawn_alloc_fails()))
        return NULL;
    spool__worker_t *w = spool__current_worker();
    if (size > SPOOL_SPAWN_COPY_INLINE || w == NULL || w->pool != pool)
        return copy_alloc_heap(size);
    copy_block_t *c = spool__copy_take(&w->copies, sizeof *c + size);
    if (c != NULL)
        c->heap = 0;
    return c;
}

static void copy_free(copy_block_t *c)
{
    if (c->heap)
        free(c);
    else
        spool__copy_release(c);
}

void spool__copy_run(spool_scope_t *scope, void *arg)
{
    copy_block_t *c = arg;
    c->fn(scope, copy_data(c));
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
    if (scope->pool == NULL) {
        spool__scope_call(spool__current_worker(), scope, fn, (void *)arg);
        return 0;
    }
    copy_block_t *c = copy_alloc(scope->pool, size);
    if (c == NULL)
        return spool__scope_run_at_spawn(scope, spool__current_worker(), fn, (void *)arg);
    c->fn = fn;
    memcpy(copy_data(c), arg, size);
    int err = spool_scope_spawn(scope, spool__copy_run, c);
    if (err != 0) /* cancelled meanwhile: no job holds the copy */
        copy_free(c);
    return err;
}
