/*
 * A parallel loop and two reductions with spool_for and spool_reduce:
 * y = a*x + y over a large array, then its sum (adaptive) and the position of
 * its largest element (a reduction over a struct), each checked against a
 * plain loop.
 *
 *   spool_example_loops [N]      (default 10,000,000)
 */
#include <spool.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct axpy {
    double a;
    const double *x;
    double *y;
} axpy_t;

/* Called on disjoint parts [begin, end) of the range, maybe in parallel. */
static void axpy_part(void *ctx, size_t begin, size_t end)
{
    axpy_t *p = ctx;
    for (size_t i = begin; i < end; i++)
        p->y[i] = p->a * p->x[i] + p->y[i];
}

/* ---- sum: a double accumulator ---- */

static void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0.0;
}

static void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    const double *y = ctx;
    double s = *(double *)acc;
    for (size_t i = begin; i < end; i++)
        s += y[i];
    *(double *)acc = s;
}

static void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left += *(const double *)right;
}

/* ---- argmax: a struct accumulator; the left operand wins ties ---- */

typedef struct best {
    double value;
    size_t index;
    int empty;
} best_t;

static void best_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(best_t *)acc = (best_t){0.0, 0, 1};
}

static void best_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    const double *y = ctx;
    best_t *b = acc;
    for (size_t i = begin; i < end; i++)
        if (b->empty || y[i] > b->value)
            *b = (best_t){y[i], i, 0};
}

static void best_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    best_t *l = left;
    const best_t *r = right;
    if (!r->empty && (l->empty || r->value > l->value))
        *l = *r;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y_seq = malloc(n * sizeof *y);
    if (n == 0 || x == NULL || y == NULL || y_seq == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)(i % 1000) * 0.001;
        y[i] = y_seq[i] = (double)((i * 7919) % 10007);
    }

    /* The loop: parts of at least 4096 elements, so that each is worth a
     * job.  From this thread (outside any pool) it runs in the global pool. */
    axpy_t p = {2.0, x, y};
    spool_for_opts_t opts = {.min_len = 4096};
    double t0 = now();
    spool_for(0, n, &opts, axpy_part, &p);
    double t_loop = now() - t0;
    axpy_t q = {2.0, x, y_seq};
    axpy_part(&q, 0, n);

    spool_reducer_t sum = {sizeof(double), sum_identity, sum_fold, sum_combine};
    double s = 0.0, s_seq = 0.0;
    t0 = now();
    spool_reduce(0, n, &opts, &sum, y, &s);
    double t_sum = now() - t0;
    sum_identity(NULL, &s_seq);
    sum_fold(y_seq, &s_seq, 0, n);

    spool_reducer_t argmax = {sizeof(best_t), best_identity, best_fold, best_combine};
    best_t b, b_seq;
    spool_reduce(0, n, &opts, &argmax, y, &b);
    best_identity(NULL, &b_seq);
    best_fold(y_seq, &b_seq, 0, n);

    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= y[i] == y_seq[i];
    /* Sums of parts differ from the plain loop's in the last bits only. */
    ok &= s > s_seq * (1 - 1e-12) && s < s_seq * (1 + 1e-12);
    ok &= b.index == b_seq.index && b.value == b_seq.value; /* first maximum */
    printf("%u threads: axpy %.4f s, sum %.4f s (%.17g), max y[%zu] = %g: %s\n",
           spool_current_num_threads(), t_loop, t_sum, s, b.index, b.value, ok ? "ok" : "WRONG");
    free(x);
    free(y);
    free(y_seq);
    return ok ? 0 : 1;
}
