/* spool_for and spool_reduce: oneTBB's parallel_for "flog", step/offset and
 * splitting tests and its deterministic-reduce test, rayon's check_lengths,
 * ranges ending at SIZE_MAX, short ranges on the caller, nesting, bad input,
 * and idle CPU after a loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "pool_idle.h"
#include "spool.h"
#include "test_util.h"

static const unsigned pool_sizes[] = {1, 2, 3, 7};
enum { NUM_POOL_SIZES = sizeof pool_sizes / sizeof pool_sizes[0] };

static spool_pool_t *make_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    return pool;
}

/* Runs fn(arg) in pool, or on this thread (outside any pool) if pool is NULL. */
static void run_in(spool_pool_t *pool, spool_fn fn, void *arg)
{
    if (pool == NULL)
        fn(arg);
    else
        assert_int_equal(spool_pool_install(pool, fn, arg), 0);
}

/* The option sets every loop test runs through. */
static const spool_for_opts_t modes[] = {
    {0, 0, 0},   {1, 0, 0},  {3, 0, 0},  {0, 1, 0},  {0, 7, 0},  {2, 5, 0}, {10, 3, 0},
    {0, 0, SPOOL_FOR_FIXED}, {3, 0, SPOOL_FOR_FIXED}, {16, 0, SPOOL_FOR_FIXED},
};
enum { NUM_MODES = sizeof modes / sizeof modes[0] };

/* ---- flog: every n < 500, every mode: each index once, nothing else ---- */

enum { FLOG_PAD = 64, FLOG_MAX = 500 };

typedef struct flog {
    atomic_uint hits[FLOG_PAD + FLOG_MAX + FLOG_PAD];
    size_t base; /* index i lives in hits[i - base] */
} flog_t;

static void flog_body(void *ctx, size_t begin, size_t end)
{
    flog_t *f = ctx;
    assert_true(begin < end);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add_explicit(&f->hits[i - f->base], 1, memory_order_relaxed);
}

typedef struct flog_run {
    flog_t flog;
    size_t first; /* the range starts at first */
} flog_run_t;

static void flog_all(void *arg)
{
    flog_run_t *r = arg;
    for (unsigned m = 0; m < NUM_MODES; m++) {
        for (size_t n = 0; n < FLOG_MAX; n++) {
            memset(r->flog.hits, 0, sizeof r->flog.hits);
            r->flog.base = r->first - FLOG_PAD;
            spool_for(r->first, r->first + n, &modes[m], flog_body, &r->flog);
            for (size_t k = 0; k < FLOG_PAD + FLOG_MAX + FLOG_PAD; k++) {
                size_t i = k + r->flog.base;
                unsigned want = i >= r->first && i < r->first + n ? 1 : 0;
                if (atomic_load(&r->flog.hits[k]) != want) {
                    fprintf(stderr, "mode %u n %zu: index %zu ran %u times\n", m, n, i,
                            atomic_load(&r->flog.hits[k]));
                    fail();
                }
            }
        }
    }
}

static void test_flog(void **state)
{
    (void)state;
    static flog_run_t run;
    run.first = 1000;
    flog_all(&run); /* outside any pool: the global pool */
    for (unsigned p = 0; p < NUM_POOL_SIZES; p++) {
        spool_pool_t *pool = make_pool(pool_sizes[p]);
        run.first = 1000;
        run_in(pool, flog_all, &run);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- step and offset: a stepped loop mapped onto a range --------------- */

typedef struct stepped {
    size_t first, step;
    atomic_uint *hits; /* by (index - first) / step */
} stepped_t;

static void stepped_body(void *ctx, size_t begin, size_t end)
{
    stepped_t *s = ctx;
    for (size_t k = begin; k < end; k++) {
        size_t i = s->first + k * s->step; /* the user's index */
        assert_int_equal((i - s->first) % s->step, 0);
        atomic_fetch_add_explicit(&s->hits[(i - s->first) / s->step], 1, memory_order_relaxed);
    }
}

static void test_step_and_offset(void **state)
{
    (void)state;
    static const size_t firsts[] = {0, 1, 7, 1000, SIZE_MAX - 3000};
    static const size_t steps[] = {1, 2, 3, 7};
    static atomic_uint hits[3000];
    spool_pool_t *pool = make_pool(3);
    for (unsigned f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
        for (unsigned s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            size_t last = firsts[f] + 2999;
            size_t count = (last - firsts[f] + steps[s] - 1) / steps[s]; /* [first, last) */
            memset(hits, 0, sizeof hits);
            stepped_t st = {firsts[f], steps[s], hits};
            spool_for(0, count, NULL, stepped_body, &st);
            for (size_t k = 0; k < 3000; k++)
                assert_int_equal(atomic_load(&hits[k]), k < count ? 1 : 0);
        }
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- ranges that end at SIZE_MAX ---------------------------------------- */

static void test_range_ending_at_size_max(void **state)
{
    (void)state;
    static flog_t f;
    for (unsigned m = 0; m < NUM_MODES; m++) {
        memset(f.hits, 0, sizeof f.hits);
        f.base = SIZE_MAX - FLOG_MAX - FLOG_PAD;
        spool_for(SIZE_MAX - FLOG_MAX, SIZE_MAX, &modes[m], flog_body, &f);
        for (size_t k = 0; k < FLOG_PAD + FLOG_MAX; k++)
            assert_int_equal(atomic_load(&f.hits[k]), k >= FLOG_PAD ? 1 : 0);
    }
}

/* ---- rayon's check_lengths ------------------------------------------------ */

enum { LEN_MAX = 4096 };

typedef struct parts {
    atomic_size_t len_at[LEN_MAX]; /* the length of the part starting there */
    atomic_uint starts[LEN_MAX];   /* parts starting there */
} parts_t;

static void record_part(void *ctx, size_t begin, size_t end)
{
    parts_t *p = ctx;
    atomic_store_explicit(&p->len_at[begin], end - begin, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->starts[begin], 1, memory_order_relaxed);
}

/* The parts cover [0, len) once each, each between lo and hi long. */
static void check_parts(parts_t *p, size_t len, size_t min_len, size_t max_len, bool fixed)
{
    size_t lo = min_len > 1 ? min_len : 1;
    if (lo > len)
        lo = len;
    size_t hi = max_len != 0 && !fixed ? max_len : SIZE_MAX;
    if (hi < 2 * lo - 1)
        hi = 2 * lo - 1;
    size_t i = 0;
    while (i < len) {
        assert_int_equal(atomic_load(&p->starts[i]), 1);
        size_t n = atomic_load(&p->len_at[i]);
        if (n < lo || n > hi) {
            fprintf(stderr, "len %zu min %zu max %zu: part [%zu, %zu) outside [%zu, %zu]\n", len,
                    min_len, max_len, i, i + n, lo, hi);
            fail();
        }
        for (size_t k = i + 1; k < i + n && k < len; k++)
            assert_int_equal(atomic_load(&p->starts[k]), 0);
        i += n;
    }
    assert_int_equal(i, len);
}

static void check_lengths_all(void *arg)
{
    parts_t *p = arg;
    static const size_t mins[] = {0, 1, 2, 3, 5, 10, 100};
    static const size_t maxs[] = {0, 1, 2, 3, 5, 10, 100, 1000};
    static const size_t lens[] = {0, 1, 2, 3, 7, 10, 99, 100, 101, 1000, 1023, 4096};
    for (unsigned a = 0; a < sizeof mins / sizeof mins[0]; a++)
        for (unsigned b = 0; b < sizeof maxs / sizeof maxs[0]; b++)
            for (unsigned c = 0; c < sizeof lens / sizeof lens[0]; c++)
                for (unsigned fixed = 0; fixed < 2; fixed++) {
                    memset(p, 0, sizeof *p);
                    spool_for_opts_t o = {mins[a], maxs[b], fixed ? SPOOL_FOR_FIXED : 0};
                    spool_for(0, lens[c], &o, record_part, p);
                    check_parts(p, lens[c], mins[a], maxs[b], fixed);
                }
}

static void test_check_lengths(void **state)
{
    (void)state;
    static parts_t parts;
    check_lengths_all(&parts);
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = make_pool(pool_sizes[s]);
        run_in(pool, check_lengths_all, &parts);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* SPOOL_FOR_FIXED makes the same parts at every pool size. */
static void fixed_parts(void *arg)
{
    spool_for_opts_t o = {5, 0, SPOOL_FOR_FIXED};
    spool_for(0, 3001, &o, record_part, arg);
}

static void test_fixed_parts_do_not_depend_on_threads(void **state)
{
    (void)state;
    static parts_t first, again;
    fixed_parts(&first);
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = make_pool(pool_sizes[s]);
        for (int r = 0; r < 10; r++) {
            memset(&again, 0, sizeof again);
            run_in(pool, fixed_parts, &again);
            assert_memory_equal(&first, &again, sizeof first);
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Adaptive splitting makes at least one part per thread (rayon's budget
 * starts at the pool size) and, without max_len, not one per index. */
static void count_parts(void *ctx, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    atomic_fetch_add((atomic_uint *)ctx, 1);
}

static void adaptive_parts(void *arg)
{
    spool_for(0, 1u << 20, NULL, count_parts, arg);
}

static void test_adaptive_part_count(void **state)
{
    (void)state;
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = make_pool(pool_sizes[s]);
        atomic_uint n = 0;
        run_in(pool, adaptive_parts, &n);
        assert_true(atomic_load(&n) >= pool_sizes[s]);
        assert_true(atomic_load(&n) < 4096);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

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
        spool_pool_t *pool = make_pool(pool_sizes[s]);
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
        spool_pool_t *pool = make_pool(pool_sizes[s]);
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
static void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0.0;
}
static void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    (void)ctx;
    double s = *(double *)acc;
    for (size_t i = begin; i < end; i++)
        s += 1.0 / (double)(i + 1);
    *(double *)acc = s;
}
static void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left = *(double *)left + *(const double *)right;
}
static const spool_reducer_t sum_reducer = {sizeof(double), sum_identity, sum_fold, sum_combine};

static void test_fixed_sum_matches_balanced_tree(void **state)
{
    (void)state;
    spool_for_opts_t o = {65536, 0, SPOOL_FOR_FIXED};
    double s = 0.0;
    spool_reduce(0, (size_t)1 << 24, &o, &sum_reducer, NULL, &s);
    assert_true(s == 0x1.13676a79f2928p+4);
}

/* ---- short ranges run on the caller; nesting ------------------------------ */

typedef struct caller {
    pthread_t self;
    atomic_int calls, on_caller;
} caller_t;

static void note_caller(void *ctx, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    caller_t *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    if (pthread_equal(pthread_self(), c->self) && spool_current_thread_index() == -1)
        atomic_fetch_add(&c->on_caller, 1);
}

static void test_short_range_runs_on_caller(void **state)
{
    (void)state;
    caller_t c = {.self = pthread_self()};
    spool_for(5, 6, NULL, note_caller, &c);                  /* 1 < 2 * 1 */
    spool_for_opts_t o = {100, 0, 0};
    spool_for(0, 199, &o, note_caller, &c);                  /* 199 < 2 * 100 */
    spool_for_opts_t f = {100, 0, SPOOL_FOR_FIXED};
    spool_for(0, 150, &f, note_caller, &c);
    assert_int_equal(atomic_load(&c.calls), 3);
    assert_int_equal(atomic_load(&c.on_caller), 3);
    double s = -1.0;
    spool_reduce(0, 1, NULL, &sum_reducer, NULL, &s);        /* reduce too */
    assert_true(s == 1.0);
    s = -1.0;
    spool_reduce(3, 3, NULL, &sum_reducer, NULL, &s);        /* empty: identity */
    assert_true(s == 0.0);
}

enum { NEST = 24 };

typedef struct nest {
    atomic_uint cells[NEST][NEST][NEST];
} nest_t;

typedef struct nest_at {
    nest_t *n;
    size_t i, j;
} nest_at_t;

static void nest_k(void *ctx, size_t begin, size_t end)
{
    nest_at_t *at = ctx;
    for (size_t k = begin; k < end; k++)
        atomic_fetch_add(&at->n->cells[at->i][at->j][k], 1);
}

static void nest_j(void *ctx, size_t begin, size_t end)
{
    nest_at_t *at = ctx;
    for (size_t j = begin; j < end; j++) {
        nest_at_t inner = {at->n, at->i, j};
        spool_for(0, NEST, NULL, nest_k, &inner);
    }
}

typedef struct nest_half {
    nest_at_t at;
    size_t j_begin, j_end;
} nest_half_t;

static void nest_spawned(spool_scope_t *s, void *arg)
{
    (void)s;
    nest_half_t *h = arg;
    spool_for_opts_t o = {1, 2, 0};
    spool_for(h->j_begin, h->j_end, &o, nest_j, &h->at);
}

static void nest_scope(spool_scope_t *s, void *arg)
{
    nest_half_t *halves = arg;
    for (int h = 0; h < 2; h++)
        assert_int_equal(spool_scope_spawn(s, nest_spawned, &halves[h]), 0);
}

/* Outer loop body: a scope per index, spawning loops of loops. */
static void nest_i(void *ctx, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        nest_half_t halves[2] = {{{ctx, i, 0}, 0, NEST / 2}, {{ctx, i, 0}, NEST / 2, NEST}};
        if (i % 2)
            spool_scope(nest_scope, halves);
        else
            spool_scope_fifo(nest_scope, halves);
    }
}

static void nest_root(void *arg)
{
    spool_for(0, NEST, NULL, nest_i, arg);
}

static void test_nested_loops_in_scopes(void **state)
{
    (void)state;
    static nest_t n;
    for (unsigned s = 0; s <= NUM_POOL_SIZES; s++) {
        memset(&n, 0, sizeof n);
        spool_pool_t *pool = s < NUM_POOL_SIZES ? make_pool(pool_sizes[s]) : NULL;
        run_in(pool, nest_root, &n); /* NULL: from outside, in the global pool */
        for (size_t i = 0; i < NEST; i++)
            for (size_t j = 0; j < NEST; j++)
                for (size_t k = 0; k < NEST; k++)
                    assert_int_equal(atomic_load(&n.cells[i][j][k]), 1);
        if (pool != NULL)
            assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- bad input ------------------------------------------------------------ */

static void for_null_body(void)
{
    spool_for(0, 10, NULL, NULL, NULL);
}
static void for_null_body_empty_range(void)
{
    spool_for(5, 5, NULL, NULL, NULL);
}
static void reduce_null_reducer(void)
{
    double r;
    spool_reduce(0, 10, NULL, NULL, NULL, &r);
}
static void reduce_null_result(void)
{
    spool_reduce(0, 10, NULL, &sum_reducer, NULL, NULL);
}
static void reduce_null_fold(void)
{
    spool_reducer_t r = sum_reducer;
    r.fold = NULL;
    double d;
    spool_reduce(0, 10, NULL, &r, NULL, &d);
}
static void reduce_size_zero(void)
{
    spool_reducer_t r = sum_reducer;
    r.size = 0;
    double d;
    spool_reduce(0, 10, NULL, &r, NULL, &d);
}
static void reduce_size_too_big(void)
{
    spool_reducer_t r = sum_reducer;
    r.size = SPOOL_REDUCE_MAX_SIZE + 1;
    double d[64];
    spool_reduce(0, 10, NULL, &r, NULL, d);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(for_null_body, "spool_for"), 0);
    assert_int_equal(test_expect_abort(reduce_null_reducer, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_null_result, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_null_fold, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_size_zero, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_size_too_big, "spool_reduce"), 0);
    /* An empty range with a NULL body is still a programming error. */
    assert_int_equal(test_expect_abort(for_null_body_empty_range, "NULL body"), 0);
}

/* ---- idle after a loop ------------------------------------------------------ */

static void busy_body(void *ctx, size_t begin, size_t end)
{
    double *out = ctx;
    for (size_t i = begin; i < end; i++)
        out[i] = out[i] * 0.5 + 1.0;
}

enum { IDLE_LEN = 1 << 16, IDLE_ROUNDS = 200 };

static void loops_in_pool(void *arg)
{
    for (int r = 0; r < IDLE_ROUNDS; r++)
        spool_for(0, IDLE_LEN, NULL, busy_body, arg);
}

/* After loops have kept every worker busy, the pool goes back to sleep. */
static void test_idle_cpu_after_loop(void **state)
{
    (void)state;
    static double data[IDLE_LEN];
    spool_pool_t *pool = make_pool(4);
    run_in(pool, loops_in_pool, data);
    double want = 0.0;
    for (int r = 0; r < IDLE_ROUNDS; r++)
        want = want * 0.5 + 1.0;
    for (size_t i = 0; i < IDLE_LEN; i++)
        assert_true(data[i] == want);
    test_sleep_ms(100); /* the workers search a little, then sleep */
    double cpu0 = test_cpu_seconds();
    test_sleep_ms(500);
    double used = test_cpu_seconds() - cpu0;
    if (used >= 0.1)
        fprintf(stderr, "idle pool used %.3f s of CPU in 0.5 s\n", used);
    assert_true(used < 0.1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- coarse leaves ---------------------------------------------------------- */

/* A loop's halves forked on the way down to a leaf are private (src/deque.md);
 * before a leaf runs, they must be published if workers are idle (rule 3),
 * else they stay hidden as long as the leaf runs.  Each leaf here waits
 * until all have started (or a deadline), so the loop passes only if every
 * worker runs one at once.  Rounds: SPOOL_TEST_COARSE_ROUNDS. */
enum { COARSE_THREADS = 4, COARSE_DEADLINE_MS = 5000 };
typedef struct coarse_test {
    atomic_int started, all_met;
} coarse_test_t;

static void coarse_leaf(void *ctx, size_t begin, size_t end)
{
    coarse_test_t *t = ctx;
    for (size_t i = begin; i < end; i++)
        if (test_meet(&t->started, COARSE_THREADS, COARSE_DEADLINE_MS))
            atomic_fetch_add(&t->all_met, 1);
}

static void coarse_loop(void *arg)
{
    spool_for_opts_t opts = {.max_len = 1};
    spool_for(0, COARSE_THREADS, &opts, coarse_leaf, arg);
}

static void test_coarse_leaves_run_side_by_side(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_COARSE_ROUNDS", 20);
    spool_config_t config = {.num_threads = COARSE_THREADS};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (unsigned long r = 0; r < rounds; r++) {
        coarse_test_t t;
        atomic_init(&t.started, 0);
        atomic_init(&t.all_met, 0);
        if (r % 2 == 1)
            test_sleep_ms(20); /* the workers sleep first */
        /* Idle when the loop starts: see test_scope.c's coarse spawns. */
        assert_true(test_wait_pool_idle(pool, COARSE_DEADLINE_MS));
        assert_int_equal(spool_pool_install(pool, coarse_loop, &t), 0);
        if (atomic_load(&t.all_met) != COARSE_THREADS)
            fail_msg("round %lu: %d of %d leaves saw all %d start", r, atomic_load(&t.all_met),
                     COARSE_THREADS, COARSE_THREADS);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- demand-driven splitting ------------------------------------------------
 * On two workers a default loop's first leaf holds all the slow iterations
 * (UNEVEN_SLOW of UNEVEN_LEN, UNEVEN_MS each).  The other worker runs the
 * fast leaves and goes idle; the slow leaf's worker then sees the demand
 * between two of its pieces and splits its rest, so the slow iterations
 * run on both workers.  Rounds: SPOOL_TEST_UNEVEN_ROUNDS. */
enum { UNEVEN_LEN = 64, UNEVEN_SLOW = 16, UNEVEN_MS = 3 };
typedef struct uneven_test {
    atomic_int ran[UNEVEN_LEN];
    atomic_int by[UNEVEN_LEN]; /* thread index + 1 */
} uneven_test_t;

static void uneven_body(void *ctx, size_t begin, size_t end)
{
    uneven_test_t *t = ctx;
    for (size_t i = begin; i < end; i++) {
        if (i < UNEVEN_SLOW)
            test_sleep_ms(UNEVEN_MS);
        atomic_fetch_add(&t->ran[i], 1);
        atomic_store(&t->by[i], spool_current_thread_index() + 1);
    }
}

static void uneven_loop(void *arg)
{
    spool_for(0, UNEVEN_LEN, NULL, uneven_body, arg);
}

static void test_uneven_leaf_is_split_on_demand(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_UNEVEN_ROUNDS", 5);
    spool_pool_t *pool = make_pool(2);
    for (unsigned long r = 0; r < rounds; r++) {
        uneven_test_t t;
        for (int i = 0; i < UNEVEN_LEN; i++) {
            atomic_init(&t.ran[i], 0);
            atomic_init(&t.by[i], 0);
        }
        run_in(pool, uneven_loop, &t);
        int seen = 0; /* bit k: thread k ran a slow iteration */
        for (int i = 0; i < UNEVEN_LEN; i++) {
            assert_int_equal(atomic_load(&t.ran[i]), 1);
            if (i < UNEVEN_SLOW)
                seen |= 1 << (atomic_load(&t.by[i]) - 1);
        }
        if (seen != 3)
            fail_msg("round %lu: the slow iterations ran on threads %#x only", r, seen);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flog),
        cmocka_unit_test(test_step_and_offset),
        cmocka_unit_test(test_range_ending_at_size_max),
        cmocka_unit_test(test_check_lengths),
        cmocka_unit_test(test_fixed_parts_do_not_depend_on_threads),
        cmocka_unit_test(test_adaptive_part_count),
        cmocka_unit_test(test_reduce_splitting),
        cmocka_unit_test(test_deterministic_reduce),
        cmocka_unit_test(test_fixed_sum_matches_balanced_tree),
        cmocka_unit_test(test_short_range_runs_on_caller),
        cmocka_unit_test(test_nested_loops_in_scopes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_idle_cpu_after_loop),
        cmocka_unit_test(test_coarse_leaves_run_side_by_side),
        cmocka_unit_test(test_uneven_leaf_is_split_on_demand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
