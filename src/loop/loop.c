/*
 * Parallel loops: spool_for and spool_reduce, by recursive halving over
 * spool_join.  Every part lives in a join frame on the stack.
 *
 * Splitting is rayon's LengthSplitter (include/spool_loop.h).  A right
 * half knows whether it migrated: it did if it runs on another worker than
 * the one that forked it, or on that worker through its deque while the
 * left half is still running (the forker popped it while waiting inside
 * the left half).  Only a right half that runs after its left half
 * returned, on the same worker, continues where the left half stopped:
 * that is when spool_reduce may keep folding into the left half's
 * accumulator.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "pool/global.h"
#include "platform/test_hooks.h"
#include "platform/tuning.h"
#include "scheduler/worker.h"

/* A leaf's first piece, which measures the loop's pace, is 1/LEAF_PIECES
 * of it.  The times that decide splitting and the loop memo are tuning.h's
 * leaf_long, split_min and loop_short. */
#define LEAF_PIECES 8u
/* A loop's pace is ticks per iteration in fixed point, 2^-PACE_SHIFT. */
#define PACE_SHIFT 10

/* A loop a worker ran lately: its body (or fold), its length,
 * the work it measured last time (spool__ticks, 0: not measured), the last
 * split run's time from start to end (0: none), whether a run of it as one
 * leaf ever read long and whether the last one took less than that split
 * run, and, since a run as one leaf read long, the split runs until it is
 * run whole again to look (and how many apart those looks are). */
typedef struct memo_entry {
    void (*fn)(void);
    size_t len;
    uint64_t ticks;
    uint64_t split_took;
    bool whole_was_long, whole_faster;
    uint32_t probe_left, probe_every;
} memo_entry_t;

/* A worker's memo (worker.h's loops): its latest loops, by hash of the
 * body.  Only the worker (or the caller slot's holder) reads and writes
 * it. */
#define MEMO_ENTRIES 4u
struct spool__loop_memo {
    memo_entry_t entries[MEMO_ENTRIES];
};

typedef struct loop {
    size_t min;      /* max(min_len, 1) */
    size_t max;      /* max_len, 0 for none */
    size_t threads;  /* the pool's size, for the splitter */
    bool fixed;
    /* Adaptive: the most ticks per iteration << PACE_SHIFT, plus one, that a
     * leaf measured; 0 until one did.  Relaxed: a hint (a lost update of
     * two leaves at once leaves a pace one of them measured). */
    _Atomic uint64_t pace;
    /* The least pace a leaf measured (0: none), for the loop memo: a
     * leaf preempted or woken cold reads slow, and the slowest would make
     * a short loop look long to the memo (relaxed, as pace). */
    _Atomic uint64_t pace_min;
    spool_range_fn body;             /* spool_for */
    const spool_reducer_t *reducer;  /* spool_reduce */
    void *ctx;
} loop_t;

typedef struct part {
    loop_t *loop; /* parts write its pace */
    size_t begin, end;
    size_t splits; /* the split budget */
    void *acc;     /* spool_reduce: the accumulator this part folds into */
} part_t;

typedef struct left_part {
    part_t part;
    bool *done; /* its right sibling's left_done */
} left_part_t;

typedef struct right_part {
    part_t part;
    spool__worker_t *forker; /* the worker that forked it; NULL outside any pool */
    bool left_done;          /* written and read by the forker only */
    void *own;               /* reduce: an accumulator in the forker's frame; the
                                part folds into it (acc == own) if it started
                                from the identity */
} right_part_t;

/* Would len iterations take less than ticks_min at pace (0: not known)? */
static bool takes_less(uint64_t pace, size_t len, uint64_t ticks_min)
{
    return pace != 0 && pace < ticks_min && len < (ticks_min << PACE_SHIFT) / pace;
}

/* Is a part of len iterations too short to split, once a leaf has
 * measured the loop's pace: would its halves run in less time than a
 * steal and a join cost? */
static bool short_at_pace(loop_t *l, size_t len)
{
    return takes_less(atomic_load_explicit(&l->pace, memory_order_relaxed), len,
                      spool__tuning.split_min);
}

/* May a part of len iterations be split?  Updates the budget. */
static bool try_split(loop_t *l, size_t len, size_t *splits, bool migrated)
{
    if (len / 2 < l->min)
        return false; /* a half would be shorter than min_len */
    if (l->fixed)
        return true;
    if ((l->max == 0 || len <= l->max) && short_at_pace(l, len))
        return false; /* a split would cost more than it could save */
    if (migrated) {
        /* Stolen work is split further, so that idle workers get fed. */
        size_t half = *splits / 2;
        *splits = half > l->threads ? half : l->threads;
        return true;
    }
    if (*splits == 0)
        return false;
    *splits /= 2;
    return true;
}

static void run_part(part_t *p, bool migrated);

/* Calls the body, or folds, on [b, e). */
static void call(const part_t *p, size_t b, size_t e)
{
    const loop_t *l = p->loop;
    if (l->reducer == NULL)
        l->body(l->ctx, b, e);
    else
        l->reducer->fold(l->ctx, p->acc, b, e);
}

/* Between two pieces of a leaf worth sharing, on worker w, after a thief
 * found no public job on w's deque: publishes w's private jobs if it has
 * some; else true if its deque is empty, so that the leaf's rest is the
 * work wanted.  A hint (relaxed loads). */
static bool rest_wanted(spool__worker_t *w)
{
    spool__deque_t *d = &w->deque;
    if (d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed)) {
        spool__worker_publish(w);
        return false;
    }
    return spool__deque_len(d) == 0;
}

static void leaf(const part_t *p)
{
    loop_t *l = p->loop;
    spool__worker_t *w = spool__current_worker();
    /* The halves forked on the way down are private; a leaf may run long
     * (deque.md, rule 3). */
    spool__worker_share_if_idle(w);
    if (l->fixed) {
        if (l->reducer != NULL)
            l->reducer->identity(l->ctx, p->acc);
        call(p, p->begin, p->end);
        return;
    }
    /* Demand-driven splitting.  A long leaf (its rest, at the pace of its
     * first piece, takes tuning.leaf_long or more) runs in pieces, and when,
     * between two, a thief has found no public job on this worker's deque
     * (a flag on the owner's own line, cheap to read) or another worker is
     * idle (asleep, it asks for nothing: a loop run whole by the memo
     * pushed nothing that would have woken it), serves the demand:
     * by the worker's private jobs if it has some, else (its siblings were
     * all taken: uneven work) by splitting its rest as a stolen part would
     * be.  A short leaf, the common case in many short loops, runs in one
     * call.  Each leaf measures its pace on its first piece. */
    size_t len = p->end - p->begin, step = len / LEAF_PIECES;
    if (w == NULL || l->threads < 2 || step < l->min || len / 2 < l->min) {
        call(p, p->begin, p->end);
        return;
    }
    size_t b = p->begin;
    uint64_t t = spool__ticks();
    call(p, b, b + step);
    b += step;
    uint64_t took = spool__ticks() - t;
    uint64_t pace = (took << PACE_SHIFT) / step + 1;
    /* The loop's pace is the slowest any leaf has seen, so that a cheap
     * start does not stop the splitting of the rest. */
    if (pace > atomic_load_explicit(&l->pace, memory_order_relaxed))
        atomic_store_explicit(&l->pace, pace, memory_order_relaxed);
    uint64_t least = atomic_load_explicit(&l->pace_min, memory_order_relaxed);
    if (least == 0 || pace < least)
        atomic_store_explicit(&l->pace_min, pace, memory_order_relaxed);
    size_t rest = p->end - b;
    if (takes_less(pace, rest, spool__tuning.leaf_long)) {
        call(p, b, p->end);
        return;
    }
    /* Pieces of about tuning.leaf_long at the first piece's own pace (at
     * most len / LEAF_PIECES, at least min_len): a demand waits for one of
     * them.  From the first piece's time and length, not from pace, whose
     * fixed point floors a body far faster than a tick per iteration (one
     * that ignores its range's length): the number of pieces follows the
     * time, never the range alone. */
    double paced = (double)step * (double)spool__tuning.leaf_long / (double)(took ? took : 1);
    if (paced < (double)step)
        step = paced > (double)l->min ? (size_t)paced : l->min;
    for (;;) {
        rest = p->end - b;
        if (rest < step + l->min) {
            call(p, b, p->end); /* a piece shorter than min_len would be left */
            return;
        }
        if ((spool__deque_demanded(&w->deque) || spool__worker_peers_idle(w)) &&
            rest_wanted(w)) {
            part_t more = {l, b, p->end, 0, p->acc};
            run_part(&more, true);
            return;
        }
        call(p, b, b + step);
        b += step;
    }
}

static void run_left(void *arg)
{
    left_part_t *left = arg;
    run_part(&left->part, false);
    *left->done = true;
}

static void run_right(void *arg)
{
    right_part_t *right = arg;
    /* forker is read-only here; left_done is read only by the forker. */
    bool migrated = spool__current_worker() != right->forker || !right->left_done;
    const loop_t *l = right->part.loop;
    if (l->reducer != NULL && migrated && !l->fixed) {
        /* The left half's accumulator is not ours to continue. */
        l->reducer->identity(l->ctx, right->own);
        right->part.acc = right->own;
    }
    run_part(&right->part, migrated);
}

static void run_part(part_t *p, bool migrated)
{
    loop_t *l = p->loop;
    size_t splits = p->splits;
    if (!try_split(l, p->end - p->begin, &splits, migrated)) {
        leaf(p);
        return;
    }
    size_t mid = p->begin + (p->end - p->begin) / 2;
    left_part_t left = {{l, p->begin, mid, splits, p->acc}, NULL};
    if (l->reducer == NULL) {
        right_part_t right = {{l, mid, p->end, splits, NULL}, spool__current_worker(), false, NULL};
        left.done = &right.left_done;
        spool_join(run_left, &left, run_right, &right);
        return;
    }
    alignas(max_align_t) unsigned char own[SPOOL_REDUCE_MAX_SIZE];
    /* Fixed: every split combines its halves, so the right one folds into its
     * own accumulator from the start. */
    right_part_t right = {{l, mid, p->end, splits, l->fixed ? (void *)own : p->acc},
                          spool__current_worker(), false, own};
    left.done = &right.left_done;
    spool_join(run_left, &left, run_right, &right);
    if (right.part.acc == own)
        l->reducer->combine(l->ctx, p->acc, own);
}

typedef struct loop_root {
    loop_t *loop;
    size_t begin, end;
    void *acc;
} loop_root_t;

static void run_root(void *arg);

/* The timeline names a loop's parts after the user's body (or fold), with
 * the loop's ctx as the argument. */
static bool loop_describe(void (*fn)(void *), void *arg, spool__job_info_t *info)
{
    const loop_t *l;
    if (fn == run_right)
        l = ((const right_part_t *)arg)->part.loop;
    else if (fn == run_root)
        l = ((const loop_root_t *)arg)->loop;
    else
        return false;
    info->fn = l->reducer != NULL ? spool__fn_bits((void (*)(void))l->reducer->fold)
                                  : spool__fn_bits((void (*)(void))l->body);
    info->arg = (uint64_t)(uintptr_t)l->ctx;
    return true;
}
SPOOL__TRACE_DESCRIBER(loop_describe);

/* A time for the memo, where 0 means "not measured". */
static uint64_t at_least_one(uint64_t ticks)
{
    return ticks != 0 ? ticks : 1;
}

/* The whole range, on a worker (or on a caller with no pool at all). */
static void run_root(void *arg)
{
    loop_root_t *root = arg;
    loop_t *l = root->loop;
    spool__worker_t *w = spool__current_worker();
    /* The caller slot's holder is one more thread (as
     * spool_current_num_threads counts it). */
    l->threads = w != NULL ? w->pool->num_slots : 1;
    size_t len = root->end - root->begin;
    size_t splits = l->threads;
    if (l->max != 0 && len / l->max > splits)
        splits = len / l->max;
    part_t p = {l, root->begin, root->end, splits, root->acc};
    if (w == NULL || l->fixed || l->threads < 2 || (l->max != 0 && len > l->max)) {
        run_part(&p, false);
        return;
    }
    /* The loop memo.  A loop whose work was short here last time runs as
     * one leaf (which still splits on demand if it turns out long).  A
     * split run records its work as its leaves' pace says (their first
     * pieces), without the splits' own cost, or its time from start to end
     * if no leaf was timed; a whole run records its time, and if that reads
     * long (an uneven loop whose leaves' first pieces were cheap, a run
     * that waited or was preempted, or one that found its data in other
     * cores' caches after a split run), the pace of later split runs is not
     * trusted for this loop: their time from start to end counts, which
     * holds their own cost.  A whole run that reads long but took less
     * than the last split run still wins: the loop stays whole for as long
     * as that holds (splitting a short loop among many awake thieves costs
     * more than the loop).  Else, so that one preempted whole run does not
     * keep a short loop split for good, such a loop runs whole again to
     * look, after 1, 2, 4, ... split runs (at most tuning.loop_probe_max
     * apart): a look that reads short, or faster than splitting, brings it
     * back to whole runs. */
    void (*fn)(void) = l->reducer != NULL ? (void (*)(void))l->reducer->fold
                                          : (void (*)(void))l->body;
    if (SPOOL__UNLIKELY(w->loops == NULL))
        w->loops = calloc(1, sizeof *w->loops);
    memo_entry_t scratch = {0}; /* no memory for a memo: this run alone */
    memo_entry_t *m =
        w->loops != NULL ? &w->loops->entries[((uintptr_t)fn >> 4) % MEMO_ENTRIES] : &scratch;
    if (m->fn != fn || m->len != len)
        *m = (memo_entry_t){.fn = fn, .len = len};
    uint64_t short_ticks = spool__test_loop_short_ticks(spool__tuning.loop_short);
    bool whole = m->ticks != 0 && (m->ticks < short_ticks || m->whole_faster);
    if (!whole && m->whole_was_long && --m->probe_left == 0)
        whole = true; /* a look */
    if (whole)
        p.splits = 0;
    uint64_t start = spool__ticks();
    run_part(&p, false);
    uint64_t took = spool__ticks() - start;
    if (whole) {
        m->ticks = at_least_one(took);
        m->whole_faster = m->split_took != 0 && took < m->split_took;
        m->whole_was_long |= took >= short_ticks;
        if (took < short_ticks || m->whole_faster) {
            m->probe_every = 0;
        } else {
            uint32_t max = spool__tuning.loop_probe_max; /* at least 1 (tuning.c) */
            m->probe_every = m->probe_every == 0        ? 1
                             : m->probe_every >= max / 2 ? max
                                                         : 2 * m->probe_every;
            m->probe_left = m->probe_every;
        }
        return;
    }
    m->split_took = at_least_one(took);
    /* The work, at the least pace a leaf saw: the loop's own cost, not a
     * preempted or cold leaf's. */
    uint64_t pace = atomic_load_explicit(&l->pace_min, memory_order_relaxed);
    if (!m->whole_was_long && pace != 0 && len < (UINT64_MAX >> PACE_SHIFT) / pace)
        took = (pace * len) >> PACE_SHIFT;
    m->ticks = at_least_one(took);
}

static void run_loop(loop_t *l, size_t begin, size_t end, void *acc)
{
    loop_root_t root = {l, begin, end, acc};
    if (spool__current_worker() != NULL) {
        run_root(&root);
        return;
    }
    if ((end - begin) / 2 < l->min) {
        /* Too short to split: the caller runs it, no pool involved. */
        part_t p = {l, begin, end, 0, acc};
        leaf(&p);
        return;
    }
    spool_pool_t *global = spool__global_pool();
    if (global != NULL && spool__pool_run_root(global, run_root, &root) == 0)
        return;
    run_root(&root); /* no pool: every join runs both halves here */
}

/* SPOOL_FOR_FIXED with no min_len: parts of about len / FIXED_PARTS (a
 * function of the range alone, the same at every thread count), not one
 * call per iteration. */
#define FIXED_PARTS 1024u

static void loop_init(loop_t *l, const spool_for_opts_t *opts, void *ctx, size_t len,
                      const char *unknown_flags)
{
    if (opts == NULL) {
        *l = (loop_t){.min = 1, .threads = 1, .ctx = ctx};
    } else {
        if (SPOOL__UNLIKELY((opts->flags & ~SPOOL_FOR_FIXED) != 0))
            spool__abort(unknown_flags);
        bool fixed = opts->flags != 0;
        size_t min = opts->min_len > 1 ? opts->min_len : 1;
        if (fixed && opts->min_len <= 1 && len / FIXED_PARTS > 1)
            min = len / FIXED_PARTS;
        *l = (loop_t){.min = min, .max = opts->max_len, .threads = 1, .fixed = fixed, .ctx = ctx};
    }
    atomic_init(&l->pace, 0);
    atomic_init(&l->pace_min, 0);
}

void spool_for(size_t begin, size_t end, const spool_for_opts_t *opts, spool_range_fn body,
               void *ctx)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_for: NULL body");
    loop_t l;
    loop_init(&l, opts, ctx, end - begin,
              "spool_for: opts->flags has bits other than SPOOL_FOR_FIXED");
    if (begin >= end)
        return;
    l.body = body;
    run_loop(&l, begin, end, NULL);
}

void spool_reduce(size_t begin, size_t end, const spool_for_opts_t *opts,
                  const spool_reducer_t *reducer, void *ctx, void *result)
{
    if (SPOOL__UNLIKELY(reducer == NULL || reducer->identity == NULL || reducer->fold == NULL ||
                        reducer->combine == NULL || result == NULL))
        spool__abort("spool_reduce: NULL reducer, function or result");
    if (SPOOL__UNLIKELY(reducer->size == 0 || reducer->size > SPOOL_REDUCE_MAX_SIZE))
        spool__abort("spool_reduce: accumulator size 0 or above SPOOL_REDUCE_MAX_SIZE");
    loop_t l;
    loop_init(&l, opts, ctx, end - begin,
              "spool_reduce: opts->flags has bits other than SPOOL_FOR_FIXED");
    l.reducer = reducer;
    if (begin >= end) {
        reducer->identity(ctx, result);
        return;
    }
    if (!l.fixed)
        reducer->identity(ctx, result); /* lazy: parts continue in it */
    run_loop(&l, begin, end, result);
}
