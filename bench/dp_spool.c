/* W8-W14 (dp.h): spool's kernels.  IEEE double, evaluated as written. */
#include "dp.h"

#include <spool.h>

#include <string.h>

#include "kernels.h"

static int is(const char *v, const char *name)
{
    return v != NULL && strcmp(v, name) == 0;
}

/* ---- spool -------------------------------------------------------------------- */

static spool_pool_t *dp_pool;

void bench_dp_spool_use(struct spool_pool *pool)
{
    dp_pool = pool;
}

static void triad_body(void *ctx, size_t begin, size_t end)
{
    bench_dp_triad_range(ctx, begin, end);
}

static void mandel_body(void *ctx, size_t begin, size_t end)
{
    bench_dp_t *d = ctx;
    for (size_t py = begin; py < end; py++)
        d->rows[py] = bench_dp_mandel_row((long)py, d->n);
}

static void small_body(void *ctx, size_t begin, size_t end)
{
    bench_dp_small_range(ctx, begin, end);
}

static void small_one(void *a)
{
    spool_for(0, BENCH_DP_SMALL_LEN, NULL, small_body, a);
}

static void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0.0;
}

static void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    *(double *)acc = bench_dp_sum_range(ctx, *(double *)acc, begin, end);
}

static void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left = *(double *)left + *(const double *)right;
}

static const spool_reducer_t sum_reducer = {sizeof(double), sum_identity, sum_fold, sum_combine};

static void term_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    *(double *)acc = bench_dp_terms(*(const uint64_t *)ctx, *(double *)acc, begin, end);
}

static const spool_reducer_t term_reducer = {sizeof(double), sum_identity, term_fold,
                                             sum_combine};

typedef struct nested_row {
    uint64_t row;
    double s;
} nested_row_t;

/* nested/isolated: the inner reduction inside spool_isolate, the cost of an
 * isolation region per outer iteration. */
static void nested_row_isolated(void *arg)
{
    nested_row_t *r = arg;
    spool_reduce(0, r->row + 1, NULL, &term_reducer, &r->row, &r->s);
}

static void nested_body(void *ctx, size_t begin, size_t end)
{
    bench_dp_t *d = ctx;
    for (size_t i = begin; i < end; i++) {
        uint64_t row = i;
        double s = 0.0;
        if (is(d->variant, "outer")) {
            s = bench_dp_terms(row, 0.0, 0, i + 1);
        } else if (is(d->variant, "isolated")) {
            nested_row_t r = {row, 0.0};
            spool_isolate(nested_row_isolated, &r);
            s = r.s;
        } else
            spool_reduce(0, i + 1, NULL, &term_reducer, &row, &s);
        d->a[i] = s;
    }
}

static void lij_body(void *ctx, size_t begin, size_t end)
{
    bench_dp_lij_range(ctx, begin, end);
}

typedef struct lij {
    double *x;
    size_t lo, hi;
    int depth;
} lij_t;

static void lij_rec(void *arg)
{
    lij_t *r = arg;
    if (r->depth == 3) {
        spool_for(r->lo, r->hi, NULL, lij_body, r->x);
        return;
    }
    size_t mid = r->lo + (r->hi - r->lo) / 2;
    lij_t left = {r->x, r->lo, mid, r->depth + 1}, right = {r->x, mid, r->hi, r->depth + 1};
    spool_join(lij_rec, &left, lij_rec, &right);
}

static void bcast_fn(void *ctx, unsigned index, unsigned n)
{
    (void)n;
    ((bench_dp_count_t *)ctx)[index].n++;
}

typedef struct spool_call {
    const char *w;
    bench_dp_t *d;
} spool_call_t;

/* The loops, on a worker of dp_pool. */
static void spool_inside(void *arg)
{
    spool_call_t *c = arg;
    bench_dp_t *d = c->d;
    size_t n = (size_t)d->n;
    if (strcmp(c->w, "triad") == 0) {
        /* static: one fixed part per thread, as OpenMP's schedule(static) */
        spool_for_opts_t stat = {n / (size_t)d->threads, 0, SPOOL_FOR_FIXED};
        for (int p = 0; p < BENCH_DP_TRIAD_PASSES; p++)
            spool_for(0, n, is(d->variant, "static") ? &stat : NULL, triad_body, d);
    } else if (strcmp(c->w, "mandelbrot") == 0) {
        /* dynamic: every row a part of its own, as schedule(dynamic, 1) */
        spool_for_opts_t rows = {1, 1, 0};
        spool_for(0, n, is(d->variant, "dynamic") ? &rows : NULL, mandel_body, d);
    } else if (strcmp(c->w, "small-loops") == 0) {
        for (long k = 0; k < d->n; k++)
            spool_for(0, BENCH_DP_SMALL_LEN, NULL, small_body, d->a);
    } else if (strcmp(c->w, "sum") == 0) {
        spool_for_opts_t fixed = {BENCH_DP_SUM_LEAF, 0, SPOOL_FOR_FIXED};
        for (int p = 0; p < BENCH_DP_SUM_PASSES; p++)
            spool_reduce(0, n, is(d->variant, "fixed") ? &fixed : NULL, &sum_reducer, d->a,
                         &d->sum);
    } else if (strcmp(c->w, "nested") == 0) {
        spool_for(0, n, NULL, nested_body, d);
    } else if (strcmp(c->w, "loop-in-join") == 0) {
        lij_t root = {d->a, 0, n, 0};
        lij_rec(&root);
    } else {
        for (long k = 0; k < d->n; k++)
            spool_broadcast(bcast_fn, d->counts);
    }
}

int bench_dp_spool(const char *w, bench_dp_t *d)
{
    const char *v = d->variant;
    long gap = strcmp(w, "small-loops") == 0 ? bench_dp_gap_us(v) : -1;
    if (v != NULL && gap < 0 &&
        !(strcmp(w, "small-loops") == 0 && (is(v, "inside") || is(v, "caller"))) &&
        !(strcmp(w, "sum") == 0 && is(v, "fixed")) &&
        !(strcmp(w, "nested") == 0 && (is(v, "outer") || is(v, "isolated"))) &&
        !(strcmp(w, "triad") == 0 && is(v, "static")) &&
        !(strcmp(w, "mandelbrot") == 0 && is(v, "dynamic")))
        return -1; /* the other OpenMP schedules and oneTBB emulations have no spool form */
    if (strcmp(w, "small-loops") == 0 && is(v, "caller")) {
        /* outside, as a program calls it: spool_for from this thread, in
         * the global pool (as many workers), this thread taking part */
        spool_config_t c = {.num_threads = (unsigned)d->threads};
        spool_global_init(&c); /* EALREADY after the warm-up: the same pool */
        for (long k = 0; k < d->n; k++)
            spool_for(0, BENCH_DP_SMALL_LEN, NULL, small_body, d->a);
        return 0;
    }
    if (strcmp(w, "small-loops") == 0 && (v == NULL || gap >= 0)) {
        /* outside: every call from this thread, outside the pool (after
         * gap us of this thread's own work) */
        for (long k = 0; k < d->n; k++) {
            if (gap > 0)
                bench_dp_busy_ns((long long)gap * 1000);
            spool_pool_install(dp_pool, small_one, d->a);
        }
        return 0;
    }
    spool_call_t call = {w, d};
    return spool_pool_install(dp_pool, spool_inside, &call) == 0 ? 0 : -1;
}
