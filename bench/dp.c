/* W8-W14 (dp.h): the driver (inputs, timing, checks), and the sequential
 * kernels (spool's are in dp_spool.c, so that an OpenMP-only program can
 * use the driver).  IEEE double, evaluated as written. */
#include "dp.h"

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
