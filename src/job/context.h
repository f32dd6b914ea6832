/*
 * Internal: a worker's context stack (context.c; isolate.md).
 *
 * The context of running code is the innermost scope it runs in (a
 * cancelled scope reaches the scopes made inside its jobs) and the
 * innermost isolation region (spool_isolate: a waiter inside one runs only
 * that region's jobs).  Jobs carry it without a field of their own: the
 * owner of a deque notes, in an entry of its context stack, the index at
 * which a context begins (the deque's bottom when the owner entered it);
 * a job at index i of that deque has the context of the innermost entry
 * whose base is at most i.  So a join's frame, a spawn block or a heap job
 * pushed while a context holds carries it to whoever takes the job, at no
 * cost per push.  Jobs that do not live on a deque (injected, broadcast,
 * installed) carry their context in their own fields.
 *
 * The owner pushes an entry when it starts running something in another
 * context and pops it when that returns.  Any thread may look an index up
 * (a thief, for the job it takes): depth is published with release, the
 * fields are relaxed atomics, and the entries that cover an index that
 * still holds a job do not change while it does (isolate.md, "Proof
 * sketch").
 */
#ifndef SPOOL_CONTEXT_H
#define SPOOL_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

#include "platform/atomics.h"

/* A context: the innermost scope (NULL: none) and region (0: none). */
typedef struct spool__context {
    spool_scope_t *scope;
    uint64_t region;
} spool__context_t;

/* The scope that code running on this thread outside any pool is in (an
 * in-place scope's body, a group's), for the parent of scopes made there
 * and the context of work it hands to a pool. */
extern _Thread_local spool_scope_t *spool__outside_scope;

typedef struct spool__ctx_entry {
    atomic_int_least64_t base;
    _Atomic(spool_scope_t *) scope;
    atomic_uint_least64_t region;
} spool__ctx_entry_t;

typedef struct spool__ctx_array spool__ctx_array_t;
struct spool__ctx_array {
    spool__ctx_array_t *retired_next;
    unsigned cap;
    spool__ctx_entry_t entries[];
};

typedef struct spool__ctx_stack {
    /* Read by thieves: the live array and how many entries are in use
     * (entry 0 is the worker's own context, base below every index). */
    _Atomic(spool__ctx_array_t *) array;
    atomic_uint depth;
    /* The owner's: the top entry, in plain fields, and retired arrays
     * (a thief may still read one; freed with the worker). */
    int64_t top_base;
    spool__context_t top;
    spool__ctx_array_t *retired;
} spool__ctx_stack_t;

/* 0 or ENOMEM. */
int spool__ctx_init(spool__ctx_stack_t *c);
void spool__ctx_destroy(spool__ctx_stack_t *c);

/* Owner only: the array is full; grows it.  False if out of memory. */
bool spool__ctx_grow(spool__ctx_stack_t *c);

/* Owner only: code from deque index base on runs in context x.  False if
 * no entry could be had (out of memory): the caller runs in the current
 * context then. */
static inline bool spool__ctx_push(spool__ctx_stack_t *c, int64_t base, spool__context_t x)
{
    unsigned d = atomic_load_explicit(&c->depth, memory_order_relaxed);
    spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_relaxed);
    if (SPOOL__UNLIKELY(d == a->cap)) {
        if (!spool__ctx_grow(c))
            return false;
        a = atomic_load_explicit(&c->array, memory_order_relaxed);
    }
    spool__ctx_entry_t *e = &a->entries[d];
    atomic_store_explicit(&e->base, base, memory_order_relaxed);
    atomic_store_explicit(&e->scope, x.scope, memory_order_relaxed);
    atomic_store_explicit(&e->region, x.region, memory_order_relaxed);
    /* Release pairs with the acquire load of depth in spool__ctx_lookup: a
     * thief that counts this entry sees its fields. */
    atomic_store_explicit(&c->depth, d + 1, memory_order_release);
    c->top_base = base;
    c->top = x;
    return true;
}

/* Owner only: the top entry covers bottom, the owner's deque bottom, from
 * now on (isolate.md, X1').  Its base goes down to bottom if it lay above:
 * after a wait took jobs from below it, so that what the code pushes next
 * is looked up in its own context.  No job lies at bottom or above, so no
 * lookup of a job that is there changes. */
static inline void spool__ctx_cover(spool__ctx_stack_t *c, int64_t bottom)
{
    if (SPOOL__LIKELY(bottom >= c->top_base))
        return;
    unsigned d = atomic_load_explicit(&c->depth, memory_order_relaxed);
    spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_relaxed);
    /* Relaxed: a thief's lookup is for an index below bottom, which both
     * the old base and this one lie above. */
    atomic_store_explicit(&a->entries[d - 1].base, bottom, memory_order_relaxed);
    c->top_base = bottom;
}

/* Owner only: back to the entry below (the one spool__ctx_push covered),
 * which then covers bottom, the owner's deque bottom (spool__ctx_cover). */
static inline void spool__ctx_pop(spool__ctx_stack_t *c, int64_t bottom)
{
    unsigned d = atomic_load_explicit(&c->depth, memory_order_relaxed) - 1;
    /* Relaxed: an entry above the new depth is never looked at for a job
     * that is still there (isolate.md). */
    atomic_store_explicit(&c->depth, d, memory_order_relaxed);
    spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_relaxed);
    const spool__ctx_entry_t *e = &a->entries[d - 1];
    c->top_base = atomic_load_explicit(&e->base, memory_order_relaxed);
    c->top.scope = atomic_load_explicit(&e->scope, memory_order_relaxed);
    c->top.region = atomic_load_explicit(&e->region, memory_order_relaxed);
    spool__ctx_cover(c, bottom);
}

static inline bool spool__ctx_equal(spool__context_t a, spool__context_t b)
{
    return a.scope == b.scope && a.region == b.region;
}

/* Owner only: code run from here on runs in context x; bottom is the
 * owner's deque bottom, where that code's jobs go.  Pushes an entry unless
 * the top one says x and covers bottom: after the owner took jobs from
 * below the top entry's base (a wait loop), jobs pushed at bottom would
 * otherwise be looked up in an older entry (isolate.md, X1).  True if it
 * pushed one (pop it when that code returns). */
static inline bool spool__ctx_enter(spool__ctx_stack_t *c, int64_t bottom, spool__context_t x)
{
    if (spool__ctx_equal(x, c->top) && bottom >= c->top_base)
        return false;
    return spool__ctx_push(c, bottom, x);
}

/* Any thread: the context of the job at index i of the stack's deque (the
 * innermost entry whose base is at most i).  For a job the caller has
 * taken, or one it has read from a published slot and not yet taken. */
spool__context_t spool__ctx_lookup(const spool__ctx_stack_t *c, int64_t i);

#endif
