/* W8-W14 (dp.h): the driver (inputs, timing, checks), and the sequential
 * and spool kernels.  IEEE double, evaluated as written. */
#include "dp.h"

#include <spool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static int is(const char *v, const char *name)
{
    return v != NULL && strcmp(v, name) == 0;
}

/* ---- the driver ------------------------------------------------------------ */

long bench_dp_gap_us(const char *variant)
{
    if (variant == NULL || strncmp(variant, "gap", 3) != 0)
        return -1;
    char *end;
    long us = strtol(variant + 3, &end, 10);
    return end != variant + 3 && *end == '\0' && us >= 0 ? us : -1;
}

void bench_dp_busy_ns(long long ns)
{
    long long end = bench_now_ns() + ns;
    while (bench_now_ns() < end)
        ;
}

static int timed(bench_dp_kernel_fn kernel, const char *w, bench_dp_t *d, bench_dp_out_t *out)
{
    long csw0 = bench_context_switches();
    double cpu0 = bench_cpu_seconds();
    long long t0 = bench_now_ns();
    int err = kernel(w, d);
    out->seconds = (double)(bench_now_ns() - t0) * 1e-9;
    out->cpu_s = bench_cpu_seconds() - cpu0;
    out->csw = bench_context_switches() - csw0;
    return err;
}

static double *doubles(long n)
{
    double *p = malloc((size_t)n * sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "bench: out of memory\n");
        exit(2);
    }
    return p;
}

/* W10's result: a[] after min(M, 200) calls, replayed sequentially. */
static double small_loops_expected(long calls)
{
    double replay[BENCH_DP_SMALL_LEN], want = 0.0;
    for (int i = 0; i < BENCH_DP_SMALL_LEN; i++)
        replay[i] = (double)i;
    for (long k = 0; k < (calls < 200 ? calls : 200); k++)
        bench_dp_small_call(replay);
    for (int i = 0; i < BENCH_DP_SMALL_LEN; i++)
        want += replay[i];
    return want;
}

/* W12's result in closed form: a full cycle of 7 consecutive j adds 21
 * unless 7 divides i. */
static long nested_expected(long n)
{
    long want = 0;
    for (long i = 0; i < n; i++) {
        long terms = i + 1, cycles = terms / 7;
        want += i % 7 != 0 ? 21 * cycles : 0;
        for (long j = cycles * 7; j < terms; j++)
            want += (long)(((uint64_t)i * (uint64_t)j) % 7);
    }
    return want;
}

static void check(const char *w, bench_dp_t *d, bench_dp_out_t *out)
{
    long n = d->n;
    double s = 0.0;
    if (strcmp(w, "triad") == 0) {
        long want = 0;
        for (long i = 0; i < n; i++) {
            s += d->a[i];
            want += i % 1024 + 3 * (i % 7);
        }
        out->ival = (long)s;
        out->ok = out->ival == want;
    } else if (strcmp(w, "mandelbrot") == 0) {
        long sum = 0, want = 0;
        for (long py = 0; py < n; py++)
            sum += d->rows[py];
        if (n == 384)
            want = 73440037;
        else if (n == 16)
            want = 149195;
        else
            for (long py = 0; py < n; py++)
                want += bench_dp_mandel_row(py, n);
        out->ival = sum;
        out->ok = sum == want;
    } else if (strcmp(w, "small-loops") == 0) {
        for (int i = 0; i < BENCH_DP_SMALL_LEN; i++)
            s += d->a[i];
        out->is_double = 1;
        out->dval = s;
        out->ok = s == small_loops_expected(n);
    } else if (strcmp(w, "sum") == 0) {
        double nn = (double)n;
        double h = log(nn) + 0.57721566490153286 + 1.0 / (2.0 * nn) - 1.0 / (12.0 * nn * nn);
        out->is_double = 1;
        out->dval = d->sum;
        out->ok = fabs(d->sum - h) <= 1e-9 * h;
    } else if (strcmp(w, "nested") == 0) {
        for (long i = 0; i < n; i++)
            s += d->a[i];
        out->ival = (long)s;
        out->ok = out->ival == nested_expected(n);
    } else if (strcmp(w, "loop-in-join") == 0) {
        double table[1024], want = 0.0;
        for (int v = 0; v < 1024; v++)
            table[v] = bench_dp_lij_f((double)v);
        for (long i = 0; i < n; i++) {
            s += d->a[i];
            want += table[i % 1024];
        }
        out->is_double = 1;
        out->dval = s;
        out->ok = s == want;
    } else { /* broadcast */
        out->ok = 1;
        for (int t = 0; t < d->threads; t++)
            out->ok &= d->counts[t].n == n;
        out->ival = d->counts[0].n;
    }
}

int bench_dp_run(bench_dp_kernel_fn kernel, const char *w, const char *variant, long n,
                 int threads, bench_dp_out_t *out)
{
    memset(out, 0, sizeof *out);
    if (bench_dp_warm_n(w) == 0 || n <= 0 || threads < 1 || threads > BENCH_DP_MAX_T)
        return -1;
    static bench_dp_count_t counts[BENCH_DP_MAX_T];
    bench_dp_t d = {.n = n, .threads = threads, .variant = variant, .counts = counts};
    if (strcmp(w, "triad") == 0) {
        d.a = doubles(n);
        d.b = doubles(n);
        d.c = doubles(n);
        for (long i = 0; i < n; i++) {
            d.a[i] = 0.0;
            d.b[i] = (double)(i % 1024);
            d.c[i] = (double)(i % 7);
        }
    } else if (strcmp(w, "mandelbrot") == 0) {
        d.rows = calloc((size_t)n, sizeof *d.rows);
        if (d.rows == NULL)
            return -1;
    } else if (strcmp(w, "small-loops") == 0) {
        d.a = doubles(BENCH_DP_SMALL_LEN);
        for (int i = 0; i < BENCH_DP_SMALL_LEN; i++)
            d.a[i] = (double)i;
    } else if (strcmp(w, "sum") == 0) {
        d.a = doubles(n);
        for (long i = 0; i < n; i++)
            d.a[i] = 1.0 / (double)(i + 1);
    } else if (strcmp(w, "nested") == 0) {
        d.a = doubles(n);
        for (long i = 0; i < n; i++)
            d.a[i] = 0.0;
    } else if (strcmp(w, "loop-in-join") == 0) {
        d.a = doubles(n);
        for (long i = 0; i < n; i++)
            d.a[i] = (double)(i % 1024);
    } else {
        memset(counts, 0, sizeof counts);
    }
    int err = timed(kernel, w, &d, out);
    if (err == 0)
        check(w, &d, out);
    free(d.a);
    free(d.b);
    free(d.c);
    free(d.rows);
    return err;
}

long bench_dp_warm_n(const char *w)
{
    static const struct {
        const char *name;
        long warm;
    } sizes[] = {{"triad", 65536}, {"mandelbrot", 16},     {"small-loops", 100},
                 {"sum", 65536},   {"nested", 256},        {"loop-in-join", 65536},
                 {"broadcast", 100}};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(w, sizes[i].name) == 0)
            return sizes[i].warm;
    return 0;
}

/* ---- seq: plain loops, each pass or call through a volatile pointer ------ */

static void triad_seq_pass(bench_dp_t *d)
{
    bench_dp_triad_range(d, 0, (size_t)d->n);
}

static void small_seq_call(double *a)
{
    bench_dp_small_call(a);
}

static void bcast_seq_call(bench_dp_count_t *counts, int t)
{
    counts[t].n++;
}

static void (*volatile triad_seq)(bench_dp_t *) = triad_seq_pass;
static void (*volatile small_seq)(double *) = small_seq_call;
static void (*volatile bcast_seq)(bench_dp_count_t *, int) = bcast_seq_call;

int bench_dp_seq(const char *w, bench_dp_t *d)
{
    /* The variants spool-bench runs do the same sequential work. */
    if (d->variant != NULL && !is(d->variant, "inside") && !is(d->variant, "fixed") &&
        !is(d->variant, "outer") && !is(d->variant, "static") && !is(d->variant, "dynamic") &&
        !is(d->variant, "isolated") && !is(d->variant, "caller") &&
        !(strcmp(w, "small-loops") == 0 && bench_dp_gap_us(d->variant) >= 0))
        return -1;
    size_t n = (size_t)d->n;
    if (strcmp(w, "triad") == 0) {
        for (int p = 0; p < BENCH_DP_TRIAD_PASSES; p++)
            triad_seq(d);
    } else if (strcmp(w, "mandelbrot") == 0) {
        for (long py = 0; py < d->n; py++)
            d->rows[py] = bench_dp_mandel_row(py, d->n);
    } else if (strcmp(w, "small-loops") == 0) {
        long long gap = bench_dp_gap_us(d->variant) * 1000;
        for (long k = 0; k < d->n; k++) {
            if (gap > 0)
                bench_dp_busy_ns(gap);
            small_seq(d->a);
        }
    } else if (strcmp(w, "sum") == 0) {
        for (int p = 0; p < BENCH_DP_SUM_PASSES; p++)
            d->sum = bench_dp_sum_range(d->a, 0.0, 0, n);
    } else if (strcmp(w, "nested") == 0) {
        for (size_t i = 0; i < n; i++)
            d->a[i] = bench_dp_terms(i, 0.0, 0, i + 1);
    } else if (strcmp(w, "loop-in-join") == 0) {
        bench_dp_lij_range(d->a, 0, n);
    } else {
        for (long k = 0; k < d->n; k++)
            for (int t = 0; t < d->threads; t++)
                bcast_seq(d->counts, t);
    }
    return 0;
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
