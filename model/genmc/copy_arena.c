/*
 * GenMC client for the copy arena's biased count (src/memory/copy_arena.h), under
 * RC11 and IMM.  The owner (main) takes two copies from a chunk, writes
 * each, and hands each to a reader thread with a release store (the spawn
 * that publishes a job); each reader reads its copy and releases it; the
 * owner then retires the chunk.  Whoever drops the count to zero frees the
 * chunk: GenMC reports an access to freed memory, or a race with the free,
 * if a reader's read or the owner's write does not happen before it, and
 * a double free if two drops both see themselves last; at the end the
 * chunk must have been freed exactly once.
 *
 * Mutants (model/genmc/mutants, run by check.sh), which must be rejected:
 *   copy-drop-relaxed       the count's drop is relaxed (RC11 only: IMM
 *                           keeps a read before a later write that another
 *                           thread reads from, so the free still follows
 *                           the reader's read there)
 *   copy-retire-miscounts   retiring drops one count too many
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define SPOOL__COPY_CHUNK ((size_t)256) /* room for the two copies */
#include "memory/copy_arena.h"

void __VERIFIER_assume(bool);

static spool__copy_arena_t arena;
static _Atomic(int *) handed[2];

/* spool__copy_release without the address mask: the chunk is the model's
 * malloc, aligned as GenMC places it. */
static spool__copy_chunk_t *chunk;
static atomic_int frees; /* exactly one, once every thread is done */

static void *reader(void *arg)
{
    int i = (int)(intptr_t)arg;
    int *copy = atomic_load_explicit(&handed[i], memory_order_acquire);
    __VERIFIER_assume(copy != NULL);
    assert(*copy == 10 + i);
    if (spool__copy_chunk_drop(chunk, 1)) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
        free(chunk);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i);
    chunk = malloc(SPOOL__COPY_CHUNK);
    spool__copy_start(&arena, chunk);
    for (int i = 0; i < 2; i++) {
        int *copy = spool__copy_take(&arena, sizeof *copy);
        assert(copy != NULL);
        *copy = 10 + i;
        /* Release pairs with the reader's acquire: the spawn's publication. */
        atomic_store_explicit(&handed[i], copy, memory_order_release);
    }
    spool__copy_chunk_t *c = spool__copy_retire(&arena);
    if (c != NULL) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
        free(c);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load_explicit(&frees, memory_order_relaxed) == 1);
    return 0;
}
