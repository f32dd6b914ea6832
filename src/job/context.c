/* A worker's context stack: its slow paths (see context.h). */
#include "job/context.h"

#include <errno.h>
#include <stdlib.h>

_Thread_local spool_scope_t *spool__outside_scope;

enum { INITIAL_ENTRIES = 32 };

static spool__ctx_array_t *array_new(unsigned cap)
{
    spool__ctx_array_t *a = malloc(sizeof *a + cap * sizeof a->entries[0]);
    if (a != NULL) {
        a->cap = cap;
        a->retired_next = NULL;
    }
    return a;
}

int spool__ctx_init(spool__ctx_stack_t *c)
{
    spool__ctx_array_t *a = array_new(INITIAL_ENTRIES);
    if (a == NULL)
        return ENOMEM;
    /* Entry 0: the worker's own context, under every index. */
    atomic_init(&a->entries[0].base, INT64_MIN);
    atomic_init(&a->entries[0].scope, NULL);
    atomic_init(&a->entries[0].region, 0);
    atomic_init(&c->array, a);
    atomic_init(&c->depth, 1);
    c->top_base = INT64_MIN;
    c->top = (spool__context_t){NULL, 0};
    c->retired = NULL;
    return 0;
}

void spool__ctx_destroy(spool__ctx_stack_t *c)
{
    free(atomic_load_explicit(&c->array, memory_order_relaxed));
    while (c->retired != NULL) {
        spool__ctx_array_t *next = c->retired->retired_next;
        free(c->retired);
        c->retired = next;
    }
}

bool spool__ctx_grow(spool__ctx_stack_t *c)
{
    spool__ctx_array_t *old = atomic_load_explicit(&c->array, memory_order_relaxed);
    spool__ctx_array_t *a = array_new(2 * old->cap);
    if (a == NULL)
        return false;
    for (unsigned i = 0; i < old->cap; i++) {
        const spool__ctx_entry_t *from = &old->entries[i];
        atomic_init(&a->entries[i].base, atomic_load_explicit(&from->base, memory_order_relaxed));
        atomic_init(&a->entries[i].scope, atomic_load_explicit(&from->scope, memory_order_relaxed));
        atomic_init(&a->entries[i].region,
                    atomic_load_explicit(&from->region, memory_order_relaxed));
    }
    /* Release pairs with the acquire load of array in spool__ctx_lookup: a
     * thief that finds the new array finds the copied entries. */
    atomic_store_explicit(&c->array, a, memory_order_release);
    old->retired_next = c->retired;
    c->retired = old;
    return true;
}

spool__context_t spool__ctx_lookup(const spool__ctx_stack_t *c, int64_t i)
{
    /* Acquire pairs with the release store of depth in spool__ctx_push:
     * every entry counted is visible.  The array is loaded after depth
     * (acquire, pairing with spool__ctx_grow's store), so it holds at
     * least depth entries. */
    unsigned d = atomic_load_explicit(&c->depth, memory_order_acquire);
    const spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_acquire);
    if (d > a->cap)
        d = a->cap; /* an array read before a growth: its entries suffice */
    for (unsigned k = d; k-- > 0;) {
        const spool__ctx_entry_t *e = &a->entries[k];
        if (atomic_load_explicit(&e->base, memory_order_relaxed) <= i)
            return (spool__context_t){atomic_load_explicit(&e->scope, memory_order_relaxed),
                                      atomic_load_explicit(&e->region, memory_order_relaxed)};
    }
    return (spool__context_t){NULL, 0}; /* not reached: entry 0 covers every index */
}
