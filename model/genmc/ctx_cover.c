/*
 * GenMC client for X1'' (isolate.md; spool__ctx_cover in src/context.h),
 * under RC11 and IMM: a wait loop that took jobs from below its context's
 * base lowers that base to the bottom, with a relaxed store, before it or
 * the jobs it runs push there; a thief that steals the job pushed at the
 * bottom looks it up in the waiter's context, not in the older entry below.
 * The owner (main) has an outer context (region 7) from index 0 and an
 * inner one (region 8) that began at index 1; its wait has taken the job
 * at 0 (the deque starts empty).  It covers the bottom, pushes a job and
 * publishes it; one thief steals once and, if it took the job, looks up
 * its index: region 8, or the assertion fails.
 *
 * Mutant (a switch of this client), which must be rejected:
 *   -DCOVER_LATE  (the base lowered after the publication: the thief's
 *                  acquire of split does not cover the store)
 */
#define THIEVES 1
#define JOBS 1
#include "deque_client.h"
#include "context.c"

static spool__ctx_stack_t ctx;

/* spool__ctx_lookup's loads, the region only: GenMC takes the two-word
 * struct that the library's lookup returns for mixed-size accesses. */
static uint64_t lookup_region(const spool__ctx_stack_t *c, int64_t i)
{
    unsigned d = atomic_load_explicit(&c->depth, memory_order_acquire);
    const spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_acquire);
    for (unsigned k = d; k-- > 0;) {
        const spool__ctx_entry_t *e = &a->entries[k];
        if (atomic_load_explicit(&e->base, memory_order_relaxed) <= i)
            return atomic_load_explicit(&e->region, memory_order_relaxed);
    }
    return 0;
}

static void try_steal(void)
{
    spool__job_t *job;
    int64_t t;
    if (spool__deque_steal_at(&deque, &job, &t) == SPOOL__STEAL_SUCCESS) {
        assert(lookup_region(&ctx, t) == 8);
        take(job);
    }
}

static void publish(void)
{
    bool was_empty;
    (void)spool__deque_publish(&deque, &was_empty);
}

int main(void)
{
    spool__deque_init(&deque);
    assert(spool__ctx_init(&ctx) == 0);
    assert(spool__ctx_push(&ctx, 0, (spool__context_t){NULL, 7}));
    assert(spool__ctx_push(&ctx, 1, (spool__context_t){NULL, 8}));
    pthread_t thread;
    pthread_create(&thread, NULL, thief, NULL);
    int64_t bottom = atomic_load_explicit(&deque.bottom, memory_order_relaxed);
#ifndef COVER_LATE
    spool__ctx_cover(&ctx, bottom);
#endif
    jobs[0].payload = 1;
    assert(spool__deque_push(&deque, &jobs[0].base));
    publish();
#ifdef COVER_LATE
    spool__ctx_cover(&ctx, bottom);
#endif
    pthread_join(thread, NULL);
    spool__job_t *job;
    while ((job = spool__deque_pop(&deque)) != NULL)
        take(job);
    check_each_taken_once();
    return 0;
}
