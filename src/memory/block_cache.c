/* Recycling of fixed-size blocks (see block_cache.h). */
#include "memory/block_cache.h"

#include <stdlib.h>

#define KEEP SPOOL__BLOCK_CACHE_KEEP

int spool__block_depot_init(spool__block_depot_t *d, unsigned workers)
{
    d->spares = NULL;
    d->count = 0;
    d->cap = KEEP * workers;
    return pthread_mutex_init(&d->lock, NULL);
}

/* Only a spare's link is addressable: it is read before the block is
 * freed, and free takes the poisoned rest as it is. */
static void free_list(spool__block_t *b)
{
    while (b != NULL) {
        spool__block_t *next = b->next;
        free(b);
        b = next;
    }
}

void spool__block_depot_destroy(spool__block_depot_t *d)
{
    free_list(d->spares);
    d->spares = NULL;
    d->count = 0;
    pthread_mutex_destroy(&d->lock);
}

void spool__block_cache_drain(spool__block_cache_t *c)
{
    free_list(c->spares);
    c->spares = NULL;
    c->count = 0;
}

void *spool__block_depot_get(spool__block_depot_t *d, size_t size)
{
    pthread_mutex_lock(&d->lock);
    spool__block_t *b = d->spares;
    if (b != NULL) {
        d->spares = b->next;
        d->count--;
    }
    pthread_mutex_unlock(&d->lock);
    if (b == NULL)
        return malloc(size);
    SPOOL__UNPOISON(b, size);
    return b;
}

void spool__block_depot_put(spool__block_depot_t *d, void *block, size_t size)
{
    spool__block_t *b = block;
    pthread_mutex_lock(&d->lock);
    bool kept = d->count < d->cap;
    if (kept) {
        b->next = d->spares;
        SPOOL__POISON((char *)b + sizeof b->next, size - sizeof b->next);
        d->spares = b;
        d->count++;
    }
    pthread_mutex_unlock(&d->lock);
    if (!kept)
        free(block);
}

void *spool__block_refill(spool__block_cache_t *c, spool__block_depot_t *d, size_t size)
{
    pthread_mutex_lock(&d->lock);
    spool__block_t *first = d->spares;
    unsigned n = 0;
    if (first != NULL) {
        spool__block_t *last = first;
        for (n = 1; n < KEEP && last->next != NULL; n++)
            last = last->next;
        d->spares = last->next;
        d->count -= n;
        last->next = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    if (first == NULL)
        return malloc(size);
    c->spares = first->next;
    c->count = n - 1;
    SPOOL__UNPOISON(first, size);
    return first;
}

void spool__block_spill(spool__block_cache_t *c, spool__block_depot_t *d, void *block,
                        size_t size)
{
    spool__block_t *middle = NULL, *last = c->spares;
    for (unsigned i = 1; i < KEEP; i++) {
        if (i == KEEP / 2)
            middle = last;
        last = last->next;
    }
    bool spilled = false;
    pthread_mutex_lock(&d->lock);
    if (d->count + KEEP <= d->cap) {
        last->next = d->spares;
        d->spares = c->spares;
        d->count += KEEP;
        spilled = true;
    }
    pthread_mutex_unlock(&d->lock);
    if (spilled) {
        c->spares = NULL;
        c->count = 0;
        spool__block_put(c, d, block, size);
        return;
    }
    /* The depot is full: block and the older half of c's spares go back to
     * malloc, so that the next puts do not come here at once again. */
    free(block);
    spool__block_t *older = middle->next;
    middle->next = NULL;
    c->count = KEEP / 2;
    free_list(older);
}
