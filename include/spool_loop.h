/*
 * spool_loop.h: parallel loops (spool_for), reductions (spool_reduce) and
 * early-exit search (spool_find_first, spool_find_any).
 *
 * Part of spool's public interface: spool.h includes it, and it includes
 * spool.h, so that either may be included first; the conventions that
 * spool.h's opening comment states hold here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_H_LOOP
#define SPOOL_H_LOOP

#include "spool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- parallel loops -------------------------------------------------------
 *
 * spool_for and spool_reduce split a range of indices in halves with
 * spool_join until the parts are small enough, and call the body on each
 * part.  Every split lives on the stack: no heap allocation.
 *
 * Adaptive splitting (the default) is rayon's: the split budget starts at the
 * pool size (or len / max_len if larger) and halves at each split; a part
 * that migrated to another worker resets it to max(pool size, budget / 2), so
 * stolen work is split further and idle workers get fed.  With two or more
 * threads a part times its first eighth: a long part runs in pieces (the
 * body called on consecutive ranges, in order, on one thread) and splits
 * its rest when another worker is idle; parts too short to repay a steal
 * are not split, unless max_len asks.  Each worker also remembers its last
 * few loops (by body, or fold, and length): one whose work took less
 * than a split would save the last time runs whole on the caller, as one
 * such part (so it still splits if it turns out long), unless max_len
 * asks for shorter parts.  SPOOL_FOR_FIXED
 * splits at the middle while both halves keep min_len iterations, whatever
 * the pool size and whoever steals: the same parts on every run.
 *
 * Work isolation: a worker that waits for a stolen part runs other jobs of
 * the pool meanwhile, on its own stack, including other parts of the same or
 * of an enclosing loop (as oneTBB's parallel_for does without
 * task_arena::isolate).  A body that holds a lock another part of the pool
 * may need, or relies on thread-local state being unchanged across a nested
 * spool call, runs that call inside spool_isolate.
 */
typedef void (*spool_range_fn)(void *ctx, size_t begin, size_t end);

typedef struct spool_for_opts {
    size_t min_len; /* 0 or 1: none.  No part shorter than this, unless the whole range is. */
    size_t max_len; /* 0: none.  Parts are split until no longer than this (min_len wins). */
    unsigned flags; /* 0 or SPOOL_FOR_FIXED */
} spool_for_opts_t;

/* Split at the middle while both halves keep min_len iterations, the same
 * parts on every run and at every thread count (max_len is not used).
 * With min_len 0 or 1, min_len is the range's length / 1024 (at least 1),
 * so that a long range is not one call per iteration. */
#define SPOOL_FOR_FIXED 1u

/*
 * spool_for: calls body(ctx, b, e) on disjoint parts [b, e) that together
 * cover [begin, end) exactly once, potentially in parallel, and returns when
 * every call has returned.  With lo = min(max(min_len, 1), end - begin) and
 * hi = max(max_len or unbounded, 2 * lo - 1), every part has between lo and
 * hi iterations.  begin >= end: no call.  opts NULL or zeroed: defaults.
 * Runs in the current pool, or from outside any pool in the global pool;
 * a range shorter than 2 * max(min_len, 1) runs at once on the caller, as
 * does everything if the global pool cannot be started.  Loops nest freely
 * (in bodies, joins, scopes, broadcasts).
 * Threads: any.
 * Returns: nothing.  A NULL body, or bits of opts->flags other than
 * SPOOL_FOR_FIXED, print one line naming spool_for to stderr and abort.
 */
SPOOL_API void spool_for(size_t begin, size_t end, const spool_for_opts_t *opts,
                         spool_range_fn body, void *ctx);

/* ---- parallel reduce ------------------------------------------------------ */

/* The largest accumulator spool_reduce takes, in bytes. */
#define SPOOL_REDUCE_MAX_SIZE 256

/*
 * A reduction: accumulators of `size` bytes (at most SPOOL_REDUCE_MAX_SIZE,
 * aligned for any type), identity(ctx, acc) sets one to the neutral value,
 * fold(ctx, acc, b, e) adds the elements b .. e-1 to it in index order, and
 * combine(ctx, left, right) sets left to left (+) right, where left covers
 * lower indices than right.  The operation must be associative; it need not
 * be commutative.
 */
typedef struct spool_reducer {
    size_t size;
    void (*identity)(void *ctx, void *acc);
    void (*fold)(void *ctx, void *acc, size_t begin, size_t end);
    void (*combine)(void *ctx, void *left, const void *right);
} spool_reducer_t;

/*
 * spool_reduce: writes into *result (reducer->size bytes) the reduction of
 * [begin, end) in index order; an empty range gives the identity.  Parts are
 * made as in spool_for.  Adaptive mode: a part that runs on the same worker
 * right after its left neighbour keeps folding into that neighbour's
 * accumulator; only a part that migrated starts from the identity and is
 * combined afterwards, so on one thread identity runs once and combine
 * never.  With SPOOL_FOR_FIXED every part starts from the identity and every
 * split combines its two halves: the result is bit-identical at every thread
 * count.  Accumulators live on the stack: no heap allocation.  Where it runs
 * as spool_for.
 * Threads: any.
 * Returns: nothing.  A NULL reducer, function or result, a size of 0 or
 * above SPOOL_REDUCE_MAX_SIZE, or bits of opts->flags other than
 * SPOOL_FOR_FIXED print one line naming spool_reduce to stderr and abort.
 */
SPOOL_API void spool_reduce(size_t begin, size_t end, const spool_for_opts_t *opts,
                            const spool_reducer_t *reducer, void *ctx, void *result);

/* ---- early-exit search ----------------------------------------------------- */

/* find(ctx, b, e) returns the first index in [b, e) that matches, or e. */
typedef size_t (*spool_find_fn)(void *ctx, size_t begin, size_t end);

/*
 * spool_find_first: the lowest index of [begin, end) that matches, or end if
 * none does.  find is called on disjoint pieces [b, e) of the range, which
 * the pool's threads take in index order, in parallel; a piece that lies
 * wholly above a match already found is not searched.  The answer is the
 * same at every thread count.  The pieces' lengths follow opts as
 * spool_for's calls do (min_len, max_len; SPOOL_FOR_FIXED is not used);
 * begin >= end returns end with no call.  Where it runs as spool_for.
 * Threads: any.
 * Returns: the index.  A NULL find prints one line naming spool_find_first
 * to stderr and aborts; so do a find that returns an index outside [b, e]
 * and bits of opts->flags other than SPOOL_FOR_FIXED.
 */
SPOOL_API size_t spool_find_first(size_t begin, size_t end, const spool_for_opts_t *opts,
                                  spool_find_fn find, void *ctx);

/*
 * spool_find_any: some matching index of [begin, end), or end if none
 * matches.  As spool_find_first, but no piece is started once any piece
 * has found a match, so the answer may differ from run to run when several
 * indices match.
 * Threads: any.
 * Returns: the index; a NULL find aborts as in spool_find_first.
 */
SPOOL_API size_t spool_find_any(size_t begin, size_t end, const spool_for_opts_t *opts,
                                spool_find_fn find, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SPOOL_H_LOOP */
