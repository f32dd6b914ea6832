/*
 * Early-exit search: spool_find_first and spool_find_any, a spool_for
 * whose parts search in pieces and look, before each piece, at the best
 * match found so far (one shared word): a part wholly above it (first) or
 * any part once one is known (any) stops.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "spool.h"

#include "atomics.h"

typedef struct search {
    spool_find_fn find;
    void *ctx;
    size_t end;    /* the whole range's end: "no match yet" */
    size_t piece;  /* a part's pieces, at least min_len, at most max_len */
    size_t lo;     /* min_len, at least 1 */
    bool first;    /* spool_find_first: the lowest match */
    const char *bad_index; /* the abort message for a find out of bounds */
    /* The best match so far, end if none.  Relaxed: a hint that only ever
     * moves down (first) or from end to a match (any); the answer is read
     * after the loop, whose end orders every part before it. */
    atomic_size_t best;
} search_t;

static void search_part(void *arg, size_t b, size_t e)
{
    search_t *s = arg;
    while (b < e) {
        size_t best = atomic_load_explicit(&s->best, memory_order_relaxed);
        if (s->first ? b >= best : best != s->end)
            return; /* a lower match is known / some match is known */
        size_t pe = e - b > s->piece ? b + s->piece : e;
        if (e - pe < s->lo)
            pe = e; /* no piece shorter than min_len */
        size_t m = s->find(s->ctx, b, pe);
        if (SPOOL__UNLIKELY(m < b || m > pe))
            spool__abort(s->bad_index);
        if (m < pe) {
            if (s->first) {
                while (m < best && !atomic_compare_exchange_weak_explicit(
                                       &s->best, &best, m, memory_order_relaxed,
                                       memory_order_relaxed))
                    ;
            } else {
                size_t none = s->end;
                atomic_compare_exchange_strong_explicit(&s->best, &none, m, memory_order_relaxed,
                                                        memory_order_relaxed);
            }
            return;
        }
        b = pe;
    }
}

static size_t search(size_t begin, size_t end, const spool_for_opts_t *opts, spool_find_fn find,
                     void *ctx, bool first)
{
    if (SPOOL__UNLIKELY(find == NULL))
        spool__abort(first ? "spool_find_first: NULL find" : "spool_find_any: NULL find");
    if (begin >= end)
        return end;
    search_t s = {.find = find,
                  .ctx = ctx,
                  .end = end,
                  .first = first,
                  .bad_index = first ? "spool_find_first: find returned an index outside [b, e]"
                                     : "spool_find_any: find returned an index outside [b, e]"};
    s.lo = opts != NULL && opts->min_len > 1 ? opts->min_len : 1;
    /* Pieces of about 1/64 of the range per thread: a match found in one
     * part stops the others within a piece. */
    size_t len = end - begin, threads = spool_current_num_threads();
    s.piece = len / (64 * (threads > 0 ? threads : 1));
    if (s.piece < s.lo)
        s.piece = s.lo;
    if (opts != NULL && opts->max_len != 0 && s.piece > opts->max_len)
        s.piece = opts->max_len > s.lo ? opts->max_len : s.lo;
    atomic_init(&s.best, end);
    spool_for(begin, end, opts, search_part, &s);
    return atomic_load_explicit(&s.best, memory_order_relaxed);
}

size_t spool_find_first(size_t begin, size_t end, const spool_for_opts_t *opts, spool_find_fn find,
                        void *ctx)
{
    return search(begin, end, opts, find, ctx, true);
}

size_t spool_find_any(size_t begin, size_t end, const spool_for_opts_t *opts, spool_find_fn find,
                      void *ctx)
{
    return search(begin, end, opts, find, ctx, false);
}
