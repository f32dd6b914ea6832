/*
 * The data-parallel workloads W8-W14 of the team's peer comparison: triad,
 * mandelbrot, small-loops, sum, nested, loop-in-join and broadcast (their
 * definitions: the peer harness's WORKLOADS.md).  One driver (dp.c)
 * allocates and fills the inputs, times only the loops and checks the
 * result; each peer supplies the loops, as a bench_dp_kernel_fn, from the
 * sequential element code below.
 */
#ifndef SPOOL_BENCH_DP_H
#define SPOOL_BENCH_DP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BENCH_DP_TRIAD_PASSES = 20,
    BENCH_DP_SUM_PASSES = 20,
    BENCH_DP_SMALL_LEN = 4096,
    BENCH_DP_SUM_LEAF = 65536,
    BENCH_DP_MAX_T = 256,
    BENCH_DP_BLOCK = 8
};

#ifdef __cplusplus
#define BENCH_DP_LINE alignas(64)
#else
#define BENCH_DP_LINE _Alignas(64)
#endif

typedef struct bench_dp_count {
    BENCH_DP_LINE long n; /* one counter per line */
} bench_dp_count_t;

/* The inputs and outputs of one run, shared by the driver and a kernel. */
typedef struct bench_dp {
    long n;
    int threads;
    const char *variant; /* NULL: the default form */
    double *a, *b, *c;   /* triad a, b, c; small-loops, sum, nested, loop-in-join: a */
    long *rows;          /* mandelbrot */
    double sum;          /* sum: the last pass's result */
    bench_dp_count_t *counts; /* broadcast: per thread index */
} bench_dp_t;

/* Runs the timed section of workload w on d.  Returns 0, or -1 if the peer
 * has no such workload or variant (n/a). */
typedef int (*bench_dp_kernel_fn)(const char *w, bench_dp_t *d);

typedef struct bench_dp_out {
    double seconds; /* the timed section */
    double cpu_s;   /* user + system CPU seconds of the process in it */
    long csw;       /* the process's context switches in it */
    int is_double;  /* the result is printed with %a */
    long ival;
    double dval;
    int ok; /* the result checked out */
} bench_dp_out_t;

/* Fills the inputs of w[/variant] of size n, times kernel(w, d), checks.
 * Returns 0, or -1 if the kernel says n/a. */
int bench_dp_run(bench_dp_kernel_fn kernel, const char *w, const char *variant, long n,
                 int threads, bench_dp_out_t *out);

/* The warm-up size of workload w; 0 if w is not one of W8-W14. */
long bench_dp_warm_n(const char *w);

/* The peers' kernels: seq always, spool (dp.c, in the pool set with
 * bench_dp_spool_use), OpenMP and oneTBB when built with them. */
int bench_dp_seq(const char *w, bench_dp_t *d);
int bench_dp_spool(const char *w, bench_dp_t *d);
int bench_dp_omp(const char *w, bench_dp_t *d);
int bench_dp_tbb(const char *w, bench_dp_t *d);
struct spool_pool;
void bench_dp_spool_use(struct spool_pool *pool);

/* small-loops/gapN (spool's, beyond the harness): before each call the
 * calling thread works N us alone, as a program's serial part between two
 * parallel loops; the pools' threads wait that long between calls.  N, or
 * -1 if variant is not of that form. */
long bench_dp_gap_us(const char *variant);
/* Keeps the calling thread busy for ns nanoseconds (reads the clock). */
void bench_dp_busy_ns(long long ns);

/* ---- element code every peer shares ---------------------------------- */

/* The elementwise bodies run in blocks of BENCH_DP_BLOCK through a block
 * pointer: gcc -O2's vectorizer (the "very cheap" cost model) leaves a loop
 * over [begin, end), whose trip count it cannot know, scalar, but
 * vectorizes a block of fixed length.  Same arithmetic per element, so the
 * results are bit-identical. */
static inline void bench_dp_triad_block(double *__restrict a, const double *__restrict b,
                                        const double *__restrict c)
{
    for (int k = 0; k < BENCH_DP_BLOCK; k++)
        a[k] = b[k] + 3.0 * c[k];
}

static inline void bench_dp_triad_range(bench_dp_t *d, size_t begin, size_t end)
{
    size_t i = begin;
    for (; i + BENCH_DP_BLOCK <= end; i += BENCH_DP_BLOCK)
        bench_dp_triad_block(d->a + i, d->b + i, d->c + i);
    for (; i < end; i++)
        d->a[i] = d->b[i] + 3.0 * d->c[i];
}

static inline void bench_dp_small_block(double *p)
{
    for (int k = 0; k < BENCH_DP_BLOCK; k++)
        p[k] = p[k] * 0.5 + 1.0;
}

static inline void bench_dp_small_range(double *a, size_t begin, size_t end)
{
    size_t i = begin;
    for (; i + BENCH_DP_BLOCK <= end; i += BENCH_DP_BLOCK)
        bench_dp_small_block(a + i);
    for (; i < end; i++)
        a[i] = a[i] * 0.5 + 1.0;
}

/* One whole W10 call, sequentially. */
static inline void bench_dp_small_call(double *a)
{
    for (int i = 0; i < BENCH_DP_SMALL_LEN; i += BENCH_DP_BLOCK)
        bench_dp_small_block(a + i);
}

/* Iterations summed over row py of an h-row Mandelbrot image. */
static inline long bench_dp_mandel_row(long py, long h)
{
    long w = 2 * h, count = 0;
    double cy = 1.25 * (double)py / (double)h;
    for (long px = 0; px < w; px++) {
        double cx = -2.0 + 2.5 * (double)px / (double)w;
        double x = 0.0, y = 0.0;
        int k = 0;
        while (k < 1000 && x * x + y * y <= 4.0) {
            double t = x * x - y * y + cx;
            y = 2.0 * x * y + cy;
            x = t;
            k++;
        }
        count += k;
    }
    return count;
}

/* s + x[begin] + ... + x[end-1], one at a time. */
static inline double bench_dp_sum_range(const double *x, double s, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        s += x[i];
    return s;
}

/* s + term(i, begin) + ... + term(i, end-1) of W12. */
static inline double bench_dp_terms(uint64_t i, double s, uint64_t begin, uint64_t end)
{
    for (uint64_t j = begin; j < end; j++)
        s += (double)((i * j) % 7);
    return s;
}

static inline double bench_dp_lij_f(double v)
{
    for (int k = 0; k < 16; k++)
        v = sqrt(v) + 1.0;
    return v;
}

static inline void bench_dp_lij_range(double *x, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        x[i] = bench_dp_lij_f(x[i]);
}

#ifdef __cplusplus
}
#endif

#endif
