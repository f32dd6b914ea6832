/* W8-W14 for seq and spool (dp.h); definitions in the peer harness's
 * WORKLOADS.md.  IEEE double, evaluated as written (no -ffast-math). */
#include "dp.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

enum { TRIAD_PASSES = 20, SUM_PASSES = 20, SMALL_LEN = 4096, SUM_LEAF = 65536, MB_ITERS = 1000 };

typedef struct dp {
    spool_pool_t *pool;
    int spool; /* 0: seq */
    const char *variant;
    long n;
    double *a, *b, *c;
    long *rows;
    double result;
    bench_dp_out_t *out;
} dp_t;

static int is(const char *v, const char *name)
{
    return v != NULL && strcmp(v, name) == 0;
}

static void start_clock(dp_t *d, long long *t0)
{
    d->out->cpu_s = bench_cpu_seconds();
    *t0 = bench_now_ns();
}

static void stop_clock(dp_t *d, long long t0)
{
    d->out->seconds = (double)(bench_now_ns() - t0) * 1e-9;
    d->out->cpu_s = bench_cpu_seconds() - d->out->cpu_s;
}

/* Runs fn(d) in the pool (spool) or here (seq), timed. */
static void timed(dp_t *d, spool_fn fn)
{
    long long t0;
    start_clock(d, &t0);
    if (d->spool)
        spool_pool_install(d->pool, fn, d);
    else
        fn(d);
    stop_clock(d, t0);
}

/* ---- W8 triad ------------------------------------------------------------ */

static void triad_body(void *ctx, size_t begin, size_t end)
{
    dp_t *d = ctx;
    for (size_t i = begin; i < end; i++)
        d->a[i] = d->b[i] + 3.0 * d->c[i];
}

static void (*volatile triad_seq)(void *, size_t, size_t) = triad_body;

static void triad_passes(void *arg)
{
    dp_t *d = arg;
    for (int p = 0; p < TRIAD_PASSES; p++) {
        if (d->spool)
            spool_for(0, (size_t)d->n, NULL, triad_body, d);
        else
            triad_seq(d, 0, (size_t)d->n);
    }
}

static int run_triad(dp_t *d, bench_dp_out_t *out)
{
    size_t n = (size_t)d->n;
    d->a = malloc(n * sizeof *d->a);
    d->b = malloc(n * sizeof *d->b);
    d->c = malloc(n * sizeof *d->c);
    if (d->a == NULL || d->b == NULL || d->c == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        d->a[i] = 0.0;
        d->b[i] = (double)(i % 1024);
        d->c[i] = (double)(i % 7);
    }
    timed(d, triad_passes);
    double s = 0.0;
    long want = 0;
    for (size_t i = 0; i < n; i++) {
        s += d->a[i];
        want += (long)(i % 1024 + 3 * (i % 7));
    }
    out->ival = (long)s;
    out->ok = out->ival == want;
    free(d->a);
    free(d->b);
    free(d->c);
    return 0;
}

/* ---- W9 mandelbrot ------------------------------------------------------- */

static long mandel_row(long py, long h)
{
    long w = 2 * h, count = 0;
    double cy = 1.25 * (double)py / (double)h;
    for (long px = 0; px < w; px++) {
        double cx = -2.0 + 2.5 * (double)px / (double)w;
        double x = 0.0, y = 0.0;
        int k = 0;
        while (k < MB_ITERS && x * x + y * y <= 4.0) {
            double t = x * x - y * y + cx;
            y = 2.0 * x * y + cy;
            x = t;
            k++;
        }
        count += k;
    }
    return count;
}

static void mandel_body(void *ctx, size_t begin, size_t end)
{
    dp_t *d = ctx;
    for (size_t py = begin; py < end; py++)
        d->rows[py] = mandel_row((long)py, d->n);
}

static void mandel_loop(void *arg)
{
    dp_t *d = arg;
    if (d->spool)
        spool_for(0, (size_t)d->n, NULL, mandel_body, d);
    else
        mandel_body(d, 0, (size_t)d->n);
}

static int run_mandelbrot(dp_t *d, bench_dp_out_t *out)
{
    d->rows = calloc((size_t)d->n, sizeof *d->rows);
    if (d->rows == NULL)
        return 1;
    timed(d, mandel_loop);
    long sum = 0, want = 0;
    for (long py = 0; py < d->n; py++)
        sum += d->rows[py];
    if (d->n == 384)
        want = 73440037;
    else if (d->n == 16)
        want = 149195;
    else
        for (long py = 0; py < d->n; py++)
            want += mandel_row(py, d->n);
    out->ival = sum;
    out->ok = sum == want;
    free(d->rows);
    return 0;
}

/* ---- W10 small loops ------------------------------------------------------- */

static void small_body(void *ctx, size_t begin, size_t end)
{
    double *a = ((dp_t *)ctx)->a;
    for (size_t i = begin; i < end; i++)
        a[i] = a[i] * 0.5 + 1.0;
}

static void (*volatile small_seq)(void *, size_t, size_t) = small_body;

static void small_one(void *arg)
{
    spool_for(0, SMALL_LEN, NULL, small_body, arg);
}

static void small_all_inside(void *arg)
{
    dp_t *d = arg;
    for (long k = 0; k < d->n; k++)
        spool_for(0, SMALL_LEN, NULL, small_body, d);
}

static int run_small_loops(dp_t *d, bench_dp_out_t *out)
{
    static double a[SMALL_LEN];
    d->a = a;
    for (int i = 0; i < SMALL_LEN; i++)
        a[i] = (double)i;
    long long t0;
    start_clock(d, &t0);
    if (!d->spool) {
        for (long k = 0; k < d->n; k++)
            small_seq(d, 0, SMALL_LEN);
    } else if (is(d->variant, "inside")) {
        spool_pool_install(d->pool, small_all_inside, d);
    } else {
        /* outside: every call from this thread, as a user outside the pool */
        for (long k = 0; k < d->n; k++)
            spool_pool_install(d->pool, small_one, d);
    }
    stop_clock(d, t0);
    double replay[SMALL_LEN], s = 0.0, want = 0.0;
    for (int i = 0; i < SMALL_LEN; i++)
        replay[i] = (double)i;
    for (long k = 0; k < (d->n < 200 ? d->n : 200); k++)
        for (int i = 0; i < SMALL_LEN; i++)
            replay[i] = replay[i] * 0.5 + 1.0;
    for (int i = 0; i < SMALL_LEN; i++) {
        s += a[i];
        want += replay[i];
    }
    out->is_double = 1;
    out->dval = s;
    out->ok = s == want;
    return 0;
}

/* ---- W11 sum ---------------------------------------------------------------- */

static void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0.0;
}

static void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    const double *x = ((dp_t *)ctx)->a;
    double s = *(double *)acc;
    for (size_t i = begin; i < end; i++)
        s += x[i];
    *(double *)acc = s;
}

static void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left = *(double *)left + *(const double *)right;
}

static const spool_reducer_t sum_reducer = {sizeof(double), sum_identity, sum_fold, sum_combine};

static void sum_passes(void *arg)
{
    dp_t *d = arg;
    spool_for_opts_t fixed = {SUM_LEAF, 0, SPOOL_FOR_FIXED};
    for (int p = 0; p < SUM_PASSES; p++) {
        double s = 0.0;
        if (!d->spool)
            sum_fold(d, &s, 0, (size_t)d->n);
        else
            spool_reduce(0, (size_t)d->n, is(d->variant, "fixed") ? &fixed : NULL, &sum_reducer,
                         d, &s);
        d->result = s;
    }
}

static int run_sum(dp_t *d, bench_dp_out_t *out)
{
    size_t n = (size_t)d->n;
    d->a = malloc(n * sizeof *d->a);
    if (d->a == NULL)
        return 1;
    for (size_t i = 0; i < n; i++)
        d->a[i] = 1.0 / (double)(i + 1);
    timed(d, sum_passes);
    double nn = (double)n;
    double h = log(nn) + 0.57721566490153286 + 1.0 / (2.0 * nn) - 1.0 / (12.0 * nn * nn);
    out->is_double = 1;
    out->dval = d->result;
    out->ok = fabs(d->result - h) <= 1e-9 * h;
    free(d->a);
    return 0;
}

/* ---- W12 nested ------------------------------------------------------------- */

typedef struct nested_row {
    uint64_t i;
} nested_row_t;

static void term_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    uint64_t i = ((nested_row_t *)ctx)->i;
    double s = *(double *)acc;
    for (uint64_t j = begin; j < end; j++)
        s += (double)((i * j) % 7);
    *(double *)acc = s;
}

static const spool_reducer_t term_reducer = {sizeof(double), sum_identity, term_fold,
                                             sum_combine};

static void nested_body(void *ctx, size_t begin, size_t end)
{
    dp_t *d = ctx;
    for (size_t i = begin; i < end; i++) {
        nested_row_t row = {i};
        double s = 0.0;
        if (d->spool && !is(d->variant, "outer"))
            spool_reduce(0, i + 1, NULL, &term_reducer, &row, &s);
        else
            term_fold(&row, &s, 0, i + 1);
        d->a[i] = s;
    }
}

static void nested_loop(void *arg)
{
    dp_t *d = arg;
    if (d->spool)
        spool_for(0, (size_t)d->n, NULL, nested_body, d);
    else
        nested_body(d, 0, (size_t)d->n);
}

static int run_nested(dp_t *d, bench_dp_out_t *out)
{
    d->a = calloc((size_t)d->n, sizeof *d->a);
    if (d->a == NULL)
        return 1;
    timed(d, nested_loop);
    double s = 0.0;
    long want = 0;
    for (long i = 0; i < d->n; i++) {
        s += d->a[i];
        /* closed form: a full cycle of 7 consecutive j adds 21 unless 7 | i */
        long terms = i + 1, cycles = terms / 7;
        want += i % 7 != 0 ? 21 * cycles : 0;
        for (long j = cycles * 7; j < terms; j++)
            want += (long)(((uint64_t)i * (uint64_t)j) % 7);
    }
    out->ival = (long)s;
    out->ok = out->ival == want;
    free(d->a);
    return 0;
}

/* ---- W13 loop-in-join --------------------------------------------------------- */

static double lij_f(double v)
{
    for (int k = 0; k < 16; k++)
        v = sqrt(v) + 1.0;
    return v;
}

static void lij_body(void *ctx, size_t begin, size_t end)
{
    double *x = ((dp_t *)ctx)->a;
    for (size_t i = begin; i < end; i++)
        x[i] = lij_f(x[i]);
}

typedef struct lij {
    dp_t *d;
    size_t lo, hi;
    int depth;
} lij_t;

static void lij_rec(void *arg)
{
    lij_t *r = arg;
    if (r->depth == 3) {
        spool_for(r->lo, r->hi, NULL, lij_body, r->d);
        return;
    }
    size_t mid = r->lo + (r->hi - r->lo) / 2;
    lij_t left = {r->d, r->lo, mid, r->depth + 1}, right = {r->d, mid, r->hi, r->depth + 1};
    spool_join(lij_rec, &left, lij_rec, &right);
}

static void lij_root(void *arg)
{
    dp_t *d = arg;
    if (!d->spool) {
        lij_body(d, 0, (size_t)d->n);
        return;
    }
    lij_t root = {d, 0, (size_t)d->n, 0};
    lij_rec(&root);
}

static int run_loop_in_join(dp_t *d, bench_dp_out_t *out)
{
    size_t n = (size_t)d->n;
    d->a = malloc(n * sizeof *d->a);
    if (d->a == NULL)
        return 1;
    for (size_t i = 0; i < n; i++)
        d->a[i] = (double)(i % 1024);
    timed(d, lij_root);
    double table[1024], s = 0.0, want = 0.0;
    for (int v = 0; v < 1024; v++)
        table[v] = lij_f((double)v);
    for (size_t i = 0; i < n; i++) {
        s += d->a[i];
        want += table[i % 1024];
    }
    out->is_double = 1;
    out->dval = s;
    out->ok = s == want;
    free(d->a);
    return 0;
}

/* ---- W14 broadcast ------------------------------------------------------------ */

typedef struct padded_count {
    _Alignas(64) long n;
} padded_count_t;

static padded_count_t bcast_counts[SPOOL_MAX_THREADS > 256 ? 256 : SPOOL_MAX_THREADS];

static void bcast_fn(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)n;
    bcast_counts[index].n++;
}

static void (*volatile bcast_seq)(void *, unsigned, unsigned) = bcast_fn;

static void bcast_all(void *arg)
{
    dp_t *d = arg;
    for (long k = 0; k < d->n; k++)
        spool_broadcast(bcast_fn, NULL);
}

static int run_broadcast(dp_t *d, bench_dp_out_t *out, unsigned threads)
{
    memset(bcast_counts, 0, sizeof bcast_counts);
    if (d->spool) {
        timed(d, bcast_all);
    } else {
        long long t0;
        start_clock(d, &t0);
        for (long k = 0; k < d->n; k++)
            for (unsigned t = 0; t < threads; t++)
                bcast_seq(NULL, t, threads);
        stop_clock(d, t0);
    }
    out->ok = 1;
    for (unsigned t = 0; t < threads; t++)
        out->ok &= bcast_counts[t].n == d->n;
    out->ival = bcast_counts[0].n;
    return 0;
}

/* ---- dispatch -------------------------------------------------------------------- */

long bench_dp_warm_n(const char *w)
{
    static const struct {
        const char *name;
        long warm;
    } sizes[] = {{"triad", 65536}, {"mandelbrot", 16}, {"small-loops", 100}, {"sum", 65536},
                 {"nested", 256},  {"loop-in-join", 65536}, {"broadcast", 100}};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(w, sizes[i].name) == 0)
            return sizes[i].warm;
    return 0;
}

int bench_dp_run(const char *peer, const char *w, const char *variant, long n,
                 spool_pool_t *pool, bench_dp_out_t *out)
{
    memset(out, 0, sizeof *out);
    dp_t d = {.pool = pool, .spool = strcmp(peer, "spool") == 0, .variant = variant, .n = n,
              .out = out};
    /* The variants spool implements; the others are OpenMP schedules or
     * oneTBB emulations (n/a). */
    int variant_ok = variant == NULL || (d.spool && ((strcmp(w, "small-loops") == 0 &&
                                                      is(variant, "inside")) ||
                                                     (strcmp(w, "sum") == 0 && is(variant, "fixed")) ||
                                                     (strcmp(w, "nested") == 0 && is(variant, "outer"))));
    if (!variant_ok || bench_dp_warm_n(w) == 0 || n <= 0)
        return -1;
    int err;
    if (strcmp(w, "triad") == 0)
        err = run_triad(&d, out);
    else if (strcmp(w, "mandelbrot") == 0)
        err = run_mandelbrot(&d, out);
    else if (strcmp(w, "small-loops") == 0)
        err = run_small_loops(&d, out);
    else if (strcmp(w, "sum") == 0)
        err = run_sum(&d, out);
    else if (strcmp(w, "nested") == 0)
        err = run_nested(&d, out);
    else if (strcmp(w, "loop-in-join") == 0)
        err = run_loop_in_join(&d, out);
    else
        err = run_broadcast(&d, out, d.spool ? spool_pool_num_threads(pool) : 1);
    if (err != 0)
        out->ok = 0;
    return 0;
}
