/* Task groups: spool_group_*, a scope that lives in the caller's frame and
 * is opened and closed by the caller instead of running a body.  On a
 * worker it is the same scope a body would run in (local spawn blocks,
 * credits, its end run by the same worker).  Outside any pool the opener
 * takes the global pool's caller slot (caller.h) and is that worker until
 * its wait returns; if the slot is held, the group is an in-place scope of
 * the global pool, its waiter blocking on a lock latch. */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>

#include "scope/scope.h"

#include "pool/caller.h"
#include "pool/global.h"
#include "scheduler/worker.h"

#define GROUP_OPEN 0x73706f6fu /* "spoo": between init and wait */

typedef struct group_state {
    spool_scope_t scope;
    spool_pool_t *pool;
    spool__worker_t *owner; /* NULL: opened outside any pool */
    pthread_t thread;       /* the opener: the only thread that may wait */
    uint32_t open;          /* GROUP_OPEN while open */
    bool fifo;
    bool entered; /* the owner's context entry for the group was pushed */
    bool caller;  /* opened outside: the opener holds the global pool's caller slot */
} group_state_t;

_Static_assert(sizeof(group_state_t) <= sizeof(spool_group_t),
               "spool_group_t is too small for the library's group");
_Static_assert(alignof(group_state_t) <= alignof(spool_group_t),
               "spool_group_t is aligned less than the library's group");

static _Noreturn void group_abort(const char *fn, const char *what)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %s", fn, what);
    spool__abort(msg);
}

static group_state_t *state_of(spool_group_t *group)
{
    return (group_state_t *)(void *)group->spool__private;
}

static void group_init(spool_group_t *group, bool fifo, const char *name)
{
    if (group == NULL)
        group_abort(name, "NULL group");
    group_state_t *g = state_of(group);
    spool__worker_t *w = spool__current_worker();
    g->owner = w;
    g->thread = pthread_self();
    g->fifo = fifo;
    g->entered = false;
    g->caller = false;
    g->open = GROUP_OPEN;
    if (w == NULL) {
        /* From outside: the opener works as the global pool's caller until
         * its wait returns, if the slot is free (caller.h). */
        spool_pool_t *global = spool__global_pool();
        if (global != NULL) {
            w = spool__caller_enter(global, (spool__context_t){spool__outside_scope, 0});
            g->owner = w;
            g->caller = w != NULL;
        }
    }
    if (w != NULL) {
        g->pool = w->pool;
        spool__scope_open(&g->scope, g->pool, w, fifo, w->ctx.top.scope);
        /* Code from here until the wait runs in the group's context, as a
         * scope's body does (its jobs' scope; cancellation reaches down). */
        g->entered =
            spool__ctx_push(&w->ctx, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            (spool__context_t){&g->scope, w->ctx.top.region});
        return;
    }
    g->pool = spool__global_pool(); /* NULL: every spawn runs at once */
    spool__scope_open(&g->scope, g->pool, NULL, fifo, spool__outside_scope);
    spool__outside_scope = &g->scope;
}

void spool_group_init(spool_group_t *group)
{
    group_init(group, false, "spool_group_init");
}

void spool_group_init_fifo(spool_group_t *group)
{
    group_init(group, true, "spool_group_init_fifo");
}

spool_scope_t *spool_group_scope(spool_group_t *group)
{
    return group != NULL ? &state_of(group)->scope : NULL;
}

int spool_group_spawn(spool_group_t *group, spool_scope_fn fn, void *arg)
{
    return spool_scope_spawn(spool_group_scope(group), fn, arg);
}

int spool_group_spawn_copy(spool_group_t *group, spool_scope_fn fn, const void *arg, size_t size)
{
    return spool_scope_spawn_copy(spool_group_scope(group), fn, arg, size);
}

void spool_group_wait(spool_group_t *group)
{
    if (group == NULL)
        group_abort("spool_group_wait", "NULL group");
    group_state_t *g = state_of(group);
    if (g->open != GROUP_OPEN)
        group_abort("spool_group_wait", "the group is not open (never initialised, or "
                                        "waited for already)");
    if (!pthread_equal(g->thread, pthread_self()) || g->owner != spool__current_worker())
        group_abort("spool_group_wait", "called by another thread than spool_group_init's");
    spool__worker_t *w = g->owner;
    if (w != NULL) {
        if (g->entered && w->ctx.top.scope != &g->scope)
            group_abort("spool_group_wait",
                        "groups opened on one thread must be waited for in the reverse "
                        "order of their spool_group_init");
        spool__scope_close(&g->scope, g->pool, w, g->fifo);
        if (g->entered)
            spool__worker_ctx_pop(w);
        if (g->caller)
            spool__caller_leave(w);
    } else {
        if (spool__outside_scope != &g->scope)
            group_abort("spool_group_wait",
                        "groups opened on one thread must be waited for in the reverse "
                        "order of their spool_group_init");
        spool__scope_close(&g->scope, g->pool, NULL, g->fifo);
        spool__outside_scope = g->scope.parent;
    }
    g->open = 0;
}
