/* spool-search's OpenMP peer (search.h): parts of SEARCH_CHUNK handed out
 * dynamically; a shared answer, lowered by each match, lets parts above it
 * (first) or every part (any) skip their scan. */
#include <omp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "search.h"

size_t search_omp(const search_t *s, int threads);
size_t search_omp(const search_t *s, int threads)
{
    atomic_size_t found = s->n;
    long parts = (long)((s->n + SEARCH_CHUNK - 1) / SEARCH_CHUNK);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (long k = 0; k < parts; k++) {
        size_t b = (size_t)k * SEARCH_CHUNK, e = b + SEARCH_CHUNK < s->n ? b + SEARCH_CHUNK : s->n;
        size_t seen = atomic_load_explicit(&found, memory_order_relaxed);
        if (s->any ? seen != s->n : b > seen)
            continue;
        size_t i = search_scan(s->a, s->key, b, e);
        if (i == e)
            continue;
        while (i < seen && !atomic_compare_exchange_weak_explicit(&found, &seen, i,
                                                                  memory_order_relaxed,
                                                                  memory_order_relaxed))
            ;
    }
    return atomic_load(&found);
}
