/* spool_reduce: oneTBB's splitting test (every leaf contiguous, combined in
 * index order; lazy identities at one thread) and its deterministic reduce
 * with a non-commutative op, and W11's fixed leaves summed as a balanced
 * tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdatomic.h>

#include "loop_modes.h"

/* ---- reduce: oneTBB's TestSplitting --------------------------------------- */

typedef struct span_acc {
    size_t begin, end; /* begin == end: empty */
    bool empty;
} span_acc_t;

typedef struct span_ctx {
    atomic_uint identities, folds, combines;
} span_ctx_t;

static void span_identity(void *ctx, void *acc)
{
    atomic_fetch_add(&((span_ctx_t *)ctx)->identities, 1);
    *(span_acc_t *)acc = (span_acc_t){0, 0, true};
}

static void span_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    span_acc_t *a = acc;
    atomic_fetch_add(&((span_ctx_t *)ctx)->folds, 1);
    assert_true(begin < end);
    if (a->empty) {
        *a = (span_acc_t){begin, end, false};
        return;
    }
    assert_int_equal(a->end, begin); /* contiguous, in index order */
    a->end = end;
}

static void span_combine(void *ctx, void *left, const void *right)
{
    span_acc_t *l = left;
    const span_acc_t *r = right;
    atomic_fetch_add(&((span_ctx_t *)ctx)->combines, 1);
    if (r->empty)
        return;
    if (l->empty) {
        *l = *r;
        return;
    }
    assert_int_equal(l->end, r->begin); /* left.end == right.begin */
    l->end = r->end;
}

static const spool_reducer_t span_reducer = {sizeof(span_acc_t), span_identity, span_fold,
                                             span_combine};

typedef struct span_run {
    span_ctx_t ctx;
    span_acc_t result;
    size_t begin, end;
    spool_for_opts_t opts;
} span_run_t;

static void span_reduce(void *arg)
{
    span_run_t *r = arg;
    spool_reduce(r->begin, r->end, &r->opts, &span_reducer, &r->ctx, &r->result);
}

static void test_reduce_splitting(void **state)
{
    (void)state;
    static const size_t lens[] = {0, 1, 2, 5, 100, 1000, 100000};
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        for (unsigned m = 0; m < NUM_MODES; m++) {
            for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) {
                span_run_t r = {.begin = 17, .end = 17 + lens[k], .opts = modes[m]};
                run_in(pool, span_reduce, &r);
                if (lens[k] == 0) {
                    assert_true(r.result.empty);
                    continue;
                }
                assert_false(r.result.empty);
                assert_int_equal(r.result.begin, 17);
                assert_int_equal(r.result.end, 17 + lens[k]);
                bool fixed = (modes[m].flags & SPOOL_FOR_FIXED) != 0;
                if (pool_sizes[s] == 1 && !fixed) {
                    /* Lazy accumulators: one identity, never a combine. */
                    assert_int_equal(atomic_load(&r.ctx.identities), 1);
                    assert_int_equal(atomic_load(&r.ctx.combines), 0);
                }
                if (fixed) /* every leaf from the identity, every split combined */
                    assert_int_equal(atomic_load(&r.ctx.identities),
                                     atomic_load(&r.ctx.combines) + 1);
            }
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- reduce: oneTBB's deterministic reduce with a non-commutative op ---- */

/* A polynomial hash (associative, not commutative: it checks index order)
 * and a floating-point sum (not associative: it checks the combine tree). */
typedef struct det_acc {
    uint64_t hash, power; /* hash of the sequence; B^length */
    double sum;
} det_acc_t;

enum { DET_B = 1000003 };

static void det_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(det_acc_t *)acc = (det_acc_t){0, 1, 0.0};
}

static void det_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    (void)ctx;
    det_acc_t *a = acc;
    for (size_t i = begin; i < end; i++) {
        a->hash = a->hash * DET_B + (uint64_t)i;
        a->power *= DET_B;
        a->sum += 1.0 / (double)(i + 1);
    }
}

static void det_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    det_acc_t *l = left;
    const det_acc_t *r = right;
    l->hash = l->hash * r->power + r->hash;
    l->power *= r->power;
    l->sum = l->sum + r->sum;
}

static const spool_reducer_t det_reducer = {sizeof(det_acc_t), det_identity, det_fold,
                                            det_combine};

typedef struct det_run {
    spool_for_opts_t opts;
    size_t n;
    det_acc_t result;
} det_run_t;

static void det_reduce(void *arg)
{
    det_run_t *r = arg;
    spool_reduce(0, r->n, &r->opts, &det_reducer, NULL, &r->result);
}

static void test_deterministic_reduce(void **state)
{
    (void)state;
    det_acc_t seq;
    det_identity(NULL, &seq);
    det_fold(NULL, &seq, 0, 100000);
    unsigned long runs = test_iters("SPOOL_TEST_DET_RUNS", 100);
    det_acc_t first = {0, 0, 0.0};
    bool have_first = false;
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        for (unsigned long k = 0; k < runs; k++) {
            det_run_t r = {{100, 0, SPOOL_FOR_FIXED}, 100000, {0, 0, 0.0}};
            run_in(pool, det_reduce, &r);
            assert_true(r.result.hash == seq.hash); /* index order */
            if (!have_first) {
                first = r.result;
                have_first = true;
            }
            /* Bit-identical at every thread count and on every run. */
            assert_memory_equal(&r.result.sum, &first.sum, sizeof first.sum);
            /* Adaptive: same order, the sum may differ in its last bits. */
            det_run_t a = {{0, 0, 0}, 100000, {0, 0, 0.0}};
            run_in(pool, det_reduce, &a);
            assert_true(a.result.hash == seq.hash);
            assert_true(a.result.sum > seq.sum - 1e-9 && a.result.sum < seq.sum + 1e-9);
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* W11's leaves: SPOOL_FOR_FIXED, min_len 65536 over 2^24 halves down to 256
 * leaves of 65536 along a balanced tree, the shape of oneTBB's
 * parallel_deterministic_reduce, whose sum of 1/(i+1) is 0x1.13676a79f2928p+4. */
static void test_fixed_sum_matches_balanced_tree(void **state)
{
    (void)state;
    spool_for_opts_t o = {65536, 0, SPOOL_FOR_FIXED};
    double s = 0.0;
    spool_reduce(0, (size_t)1 << 24, &o, &sum_reducer, NULL, &s);
    assert_true(s == 0x1.13676a79f2928p+4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_splitting),
        cmocka_unit_test(test_deterministic_reduce),
        cmocka_unit_test(test_fixed_sum_matches_balanced_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
