/* Cancellation of scopes: spool_scope_cancel, spool_scope_is_cancelled,
 * and running a scope's job in its context unless it is dropped (see
 * scope.h, isolate.md). */
#include <errno.h>

#include "scope/scope.h"

#include "scheduler/worker.h"

atomic_uint spool__scopes_cancelled;

void spool__scope_dropped(spool__worker_t *w)
{
    if (w == NULL)
        return;
    atomic_store_explicit(&w->jobs_dropped,
                          atomic_load_explicit(&w->jobs_dropped, memory_order_relaxed) + 1,
                          memory_order_relaxed);
#if SPOOL__TRACE_ENABLED
    /* The record being written at this depth is of the job dropped. */
    spool__trace_t *t = spool__trace_current(&w->pool->trace);
    if (t != NULL)
        w->drop_level = t->rings[w->index].depth;
#endif
}

bool spool__scope_cancelled_slow(const spool_scope_t *s)
{
    /* Relaxed: a flag set once; its reader promises nothing to a job that
     * read it before the set (spool_scope_cancel's contract).  The parents
     * outlive s: a scope is made by code that runs inside its parent. */
    for (; s != NULL; s = s->parent)
        if (atomic_load_explicit(&((spool_scope_t *)s)->cancelled, memory_order_relaxed) != 0)
            return true;
    return false;
}

void spool__scope_call_cold(spool__worker_t *w, spool_scope_t *scope, spool_scope_fn fn, void *arg)
{
    if (spool__scope_dropping(scope)) {
        spool__scope_drop(w, fn, arg);
        return;
    }
    if (w == NULL) {
        spool_scope_t *prev = spool__outside_scope;
        spool__outside_scope = scope;
        fn(scope, arg);
        spool__outside_scope = prev;
        return;
    }
    bool entered = spool__scope_enter(w, scope);
    fn(scope, arg);
    if (entered)
        spool__worker_ctx_pop(w);
}

int spool_scope_cancel(spool_scope_t *scope)
{
    if (scope == NULL)
        return EINVAL;
    /* Seq-cst: the first cancel counts the scope in before any job can find
     * it cancelled through the walk (which the count turns on). */
    if (atomic_exchange_explicit(&scope->cancelled, 1, memory_order_seq_cst) == 0)
        atomic_fetch_add_explicit(&spool__scopes_cancelled, 1, memory_order_seq_cst);
    return 0;
}

int spool_scope_is_cancelled(const spool_scope_t *scope)
{
    return scope != NULL && spool__scope_cancelled_slow(scope);
}
