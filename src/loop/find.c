/*
 * Early-exit search: spool_find_first and spool_find_any.  The range is
 * cut into pieces that searchers, one per thread, take in index order
 * from a shared counter, looking before each at the best match found so
 * far (one shared word): a piece wholly above it (first), or any piece
 * once one is known (any), ends the searcher.
 *
 * The pieces grow: the first round (tuning.find_grow pieces per thread) is short, each
 * next round's pieces twice as long, up to the full length, which the rest
 * of the range is cut into evenly.  A match near the start is then reached by
 * every searcher at once and stops them soon, while a long scan takes few
 * pieces (each costs a shared increment, and short pieces interleaved
 * between threads scan slower).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "spool.h"

#include "platform/atomics.h"
#include "platform/tuning.h"

/* Pieces per thread in each round of growing pieces (tuning.find_grow):
 * with more, a match near the start leaves less of a last piece to scan
 * past it. */

typedef struct search {
    spool_find_fn find;
    void *ctx;
    size_t begin, end; /* the range; end also means "no match yet" */
    /* Rounds 0 .. rounds - 1 of per = tuning.find_grow * threads pieces each, round j's
     * small << j long, from begin; then pieces - threads * rounds pieces from
     * grown (the rest of the range), the first rest of them q + 1 long, the
     * others q. */
    size_t per, rounds, small, grown;
    size_t pieces, q, rest;
    bool first;        /* spool_find_first: the lowest match */
    const char *bad_index; /* the abort message for a find out of bounds */
    /* The next piece to search.  Relaxed: it only hands out indices. */
    atomic_size_t next;
    /* The best match so far, end if none.  Relaxed: a hint that only ever
     * moves down (first) or from end to a match (any); the answer is read
     * after the loop, whose end orders every part before it. */
    atomic_size_t best;
} search_t;

/* Piece k's bounds [*pb, *pe). */
static void piece(const search_t *s, size_t k, size_t *pb, size_t *pe)
{
    size_t growing = s->per * s->rounds;
    if (k < growing) {
        size_t j = k / s->per, i = k % s->per;
        *pb = s->begin + s->per * s->small * (((size_t)1 << j) - 1) + i * (s->small << j);
        *pe = *pb + (s->small << j);
        return;
    }
    k -= growing;
    *pb = s->grown + k * s->q + (k < s->rest ? k : s->rest);
    *pe = *pb + s->q + (k < s->rest ? 1 : 0);
}

/* One searcher: takes pieces in index order until none is left, or until
 * the next lies above the best match (first) or any match is known (any).
 * In index order, every piece below the first match is searched, so the
 * answer does not depend on the thread count; pieces above it are
 * skipped. */
static void searcher(void *arg, size_t b, size_t e)
{
    (void)b;
    (void)e;
    search_t *s = arg;
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (k >= s->pieces)
            return;
        size_t pb, pe;
        piece(s, k, &pb, &pe);
        size_t best = atomic_load_explicit(&s->best, memory_order_relaxed);
        if (s->first ? pb >= best : best != s->end)
            return; /* a lower match is known / some match is known */
        size_t m = s->find(s->ctx, pb, pe);
        if (SPOOL__UNLIKELY(m < pb || m > pe))
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
            return; /* every later piece lies above this match */
        }
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
                  .begin = begin,
                  .end = end,
                  .first = first,
                  .bad_index = first ? "spool_find_first: find returned an index outside [b, e]"
                                     : "spool_find_any: find returned an index outside [b, e]"};
    /* Full-length pieces of about 1/64 of the range per thread, within
     * spool_for's bounds (at least min_len unless the range is shorter, at
     * most max(max_len, 2 min_len - 1)); the first round's pieces about
     * 1/1024 (at least min_len), in rounds that stop short of the full
     * length and take at most half the range. */
    if (SPOOL__UNLIKELY(opts != NULL && (opts->flags & ~SPOOL_FOR_FIXED) != 0))
        spool__abort(first ? "spool_find_first: opts->flags has bits other than SPOOL_FOR_FIXED"
                           : "spool_find_any: opts->flags has bits other than SPOOL_FOR_FIXED");
    size_t lo = opts != NULL && opts->min_len > 1 ? opts->min_len : 1;
    size_t len = end - begin, threads = spool_current_num_threads();
    if (threads == 0)
        threads = 1;
    size_t want = len / (64 * threads);
    if (opts != NULL && opts->max_len != 0 && want > opts->max_len)
        want = opts->max_len;
    if (want < lo)
        want = lo;
    size_t small = len / (1024 * threads), rounds = 0;
    if (small < lo)
        small = lo;
    size_t per = (size_t)spool__tuning.find_grow * threads;
    while (rounds < 16 && small << rounds < want &&
           per * small * (((size_t)2 << rounds) - 1) <= len / 2)
        rounds++;
    s.per = per;
    s.rounds = rounds;
    s.small = small;
    s.grown = begin + per * small * (((size_t)1 << rounds) - 1);
    size_t rest = end - s.grown;
    s.pieces = rest / want + (rest % want != 0); /* each at most want long */
    if (s.pieces > rest / lo)
        s.pieces = rest / lo; /* each at least lo long */
    if (s.pieces == 0)
        s.pieces = 1;
    s.q = rest / s.pieces;
    s.rest = rest % s.pieces;
    s.pieces += per * rounds;
    atomic_init(&s.next, 0);
    atomic_init(&s.best, end);
    /* One searcher per thread (each a part of its own, so that idle
     * workers steal them); they share the pieces. */
    size_t searchers = threads < s.pieces ? threads : s.pieces;
    spool_for_opts_t one = {1, 1, 0};
    spool_for(0, searchers, &one, searcher, &s);
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
