/*
 * Parallel loops: spool_for and spool_reduce, by recursive halving over
 * spool_join.  Every part lives in a join frame on the stack.
 *
 * Splitting is rayon's LengthSplitter (include/spool.h).  A right half knows
 * whether it migrated: it did if it runs on another worker than the one that
 * forked it, or on that worker through its deque while the left half is
 * still running (the forker popped it while waiting inside the left half).
 * Only a right half that runs after its left half returned, on the same
 * worker, continues where the left half stopped: that is when spool_reduce
 * may keep folding into the left half's accumulator.
 */
#include <stdalign.h>
#include <stddef.h>

#include "global.h"
#include "worker.h"

typedef struct loop {
    size_t min;      /* max(min_len, 1) */
    size_t max;      /* max_len, 0 for none */
    size_t threads;  /* the pool's size, for the splitter */
    bool fixed;
    spool_range_fn body;             /* spool_for */
    const spool_reducer_t *reducer;  /* spool_reduce */
    void *ctx;
} loop_t;

typedef struct part {
    const loop_t *loop;
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

/* May a part of len iterations be split?  Updates the budget. */
static bool try_split(const loop_t *l, size_t len, size_t *splits, bool migrated)
{
    if (len / 2 < l->min)
        return false; /* a half would be shorter than min_len */
    if (l->fixed)
        return true;
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

static void leaf(const part_t *p)
{
    const loop_t *l = p->loop;
    /* The halves forked on the way down are private; a leaf may run long
     * (deque.md, rule 3). */
    spool__worker_share_if_idle(spool__current_worker());
    if (l->reducer == NULL) {
        l->body(l->ctx, p->begin, p->end);
        return;
    }
    if (l->fixed)
        l->reducer->identity(l->ctx, p->acc);
    l->reducer->fold(l->ctx, p->acc, p->begin, p->end);
}

static void run_part(part_t *p, bool migrated);

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
    const loop_t *l = p->loop;
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
bool spool__loop_describe(void (*fn)(void *), void *arg, spool__job_info_t *info)
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

/* The whole range, on a worker (or on a caller with no pool at all). */
static void run_root(void *arg)
{
    loop_root_t *root = arg;
    loop_t *l = root->loop;
    spool__worker_t *w = spool__current_worker();
    l->threads = w != NULL ? w->pool->num_threads : 1;
    size_t len = root->end - root->begin;
    size_t splits = l->threads;
    if (l->max != 0 && len / l->max > splits)
        splits = len / l->max;
    part_t p = {l, root->begin, root->end, splits, root->acc};
    run_part(&p, false);
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

static void loop_init(loop_t *l, const spool_for_opts_t *opts, void *ctx)
{
    static const spool_for_opts_t defaults;
    if (opts == NULL)
        opts = &defaults;
    *l = (loop_t){.min = opts->min_len > 1 ? opts->min_len : 1,
                  .max = opts->max_len,
                  .threads = 1,
                  .fixed = (opts->flags & SPOOL_FOR_FIXED) != 0,
                  .ctx = ctx};
}

void spool_for(size_t begin, size_t end, const spool_for_opts_t *opts, spool_range_fn body,
               void *ctx)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_for: NULL body");
    if (begin >= end)
        return;
    loop_t l;
    loop_init(&l, opts, ctx);
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
    loop_init(&l, opts, ctx);
    l.reducer = reducer;
    if (begin >= end) {
        reducer->identity(ctx, result);
        return;
    }
    if (!l.fixed)
        reducer->identity(ctx, result); /* lazy: parts continue in it */
    run_loop(&l, begin, end, result);
}
