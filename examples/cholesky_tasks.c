/*
 * A task graph: the tiled Cholesky factorisation A = L L^T, each tile
 * operation a spool task whose predecessors are the tasks that last wrote
 * the tiles it reads or writes (and, before a write, the tasks that read
 * the tile since), the dependencies that OpenMP's depend clauses or
 * oneTBB's flow graph would state.  The tasks are all created, linked and
 * submitted up front; the graph decides the order.  The result is checked
 * against the same factorisation done sequentially.
 *
 *   spool_example_cholesky_tasks [TILES] [TILE_SIZE]
 */
#include <spool.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t nt = 8, ts = 32; /* tiles per side, tile size */

/* Tile (i, j) of a matrix stored tile by tile. */
static double *tile(double *m, size_t i, size_t j)
{
    return m + (i * nt + j) * ts * ts;
}

/* The kernels, on ts x ts tiles (row-major). */
static void potrf(double *a)
{
    for (size_t k = 0; k < ts; k++) {
        a[k * ts + k] = sqrt(a[k * ts + k]);
        for (size_t i = k + 1; i < ts; i++)
            a[i * ts + k] /= a[k * ts + k];
        for (size_t j = k + 1; j < ts; j++)
            for (size_t i = j; i < ts; i++)
                a[i * ts + j] -= a[i * ts + k] * a[j * ts + k];
    }
    for (size_t i = 0; i < ts; i++)
        for (size_t j = i + 1; j < ts; j++)
            a[i * ts + j] = 0;
}

/* b := b L^-T, with L the lower triangle of l. */
static void trsm(const double *l, double *b)
{
    for (size_t r = 0; r < ts; r++)
        for (size_t j = 0; j < ts; j++) {
            double x = b[r * ts + j];
            for (size_t k = 0; k < j; k++)
                x -= b[r * ts + k] * l[j * ts + k];
            b[r * ts + j] = x / l[j * ts + j];
        }
}

/* c := c - a b^T. */
static void gemm(const double *a, const double *b, double *c)
{
    for (size_t i = 0; i < ts; i++)
        for (size_t j = 0; j < ts; j++) {
            double x = 0;
            for (size_t k = 0; k < ts; k++)
                x += a[i * ts + k] * b[j * ts + k];
            c[i * ts + j] -= x;
        }
}

typedef struct op {
    char kind; /* 'P', 'T', 'G' (syrk is a gemm of a tile with itself) */
    double *a, *b, *c;
} op_t;

static void run_op(void *arg)
{
    op_t *o = arg;
    if (o->kind == 'P')
        potrf(o->c);
    else if (o->kind == 'T')
        trsm(o->a, o->c);
    else
        gemm(o->a, o->b, o->c);
}

/* Per tile: the last task that wrote it, and the tasks that read it since. */
typedef struct tile_deps {
    spool_task_t *writer;
    spool_task_t **readers;
    size_t nreaders, cap;
} tile_deps_t;

static tile_deps_t *deps;
static spool_task_t **tasks;
static op_t *ops;
static size_t ntasks;

static void check(int err, const char *what)
{
    if (err != 0) {
        fprintf(stderr, "cholesky_tasks: %s: %s\n", what, spool_strerror(err));
        exit(1);
    }
}

static void reads(spool_task_t *t, size_t i, size_t j)
{
    tile_deps_t *d = &deps[i * nt + j];
    if (d->writer != NULL)
        check(spool_task_precede(d->writer, t), "spool_task_precede");
    if (d->nreaders == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 4;
        d->readers = realloc(d->readers, d->cap * sizeof *d->readers);
        if (d->readers == NULL)
            exit(1);
    }
    d->readers[d->nreaders++] = t;
}

static void writes(spool_task_t *t, size_t i, size_t j)
{
    tile_deps_t *d = &deps[i * nt + j];
    if (d->writer != NULL)
        check(spool_task_precede(d->writer, t), "spool_task_precede");
    for (size_t r = 0; r < d->nreaders; r++)
        if (d->readers[r] != t)
            check(spool_task_precede(d->readers[r], t), "spool_task_precede");
    d->writer = t;
    d->nreaders = 0;
}

static spool_task_t *add(char kind, double *a, double *b, double *c)
{
    op_t *o = &ops[ntasks];
    *o = (op_t){kind, a, b, c};
    check(spool_task_create(NULL, run_op, o, &tasks[ntasks]), "spool_task_create");
    return tasks[ntasks++];
}

int main(int argc, char **argv)
{
    if (argc > 1)
        nt = strtoul(argv[1], NULL, 10);
    if (argc > 2)
        ts = strtoul(argv[2], NULL, 10);
    if (nt == 0 || ts == 0)
        return 2;
    size_t n = nt * ts, count = n * n;
    double *a = malloc(count * sizeof *a), *seq = malloc(count * sizeof *seq);
    deps = calloc(nt * nt, sizeof *deps);
    size_t max_tasks = nt * nt * nt + 3 * nt * nt;
    tasks = malloc(max_tasks * sizeof *tasks);
    ops = malloc(max_tasks * sizeof *ops);
    if (a == NULL || seq == NULL || deps == NULL || tasks == NULL || ops == NULL)
        return 1;
    /* A symmetric, diagonally dominant (so positive definite) matrix. */
    for (size_t gi = 0; gi < n; gi++)
        for (size_t gj = 0; gj < n; gj++) {
            double v = gi == gj ? (double)n + 1.0 : 1.0 / (1.0 + (double)((gi + gj) % 17));
            tile(a, gi / ts, gj / ts)[(gi % ts) * ts + gj % ts] = v;
        }
    memcpy(seq, a, count * sizeof *a);

    /* The graph, in the sequential algorithm's order; dependencies from the
     * tiles each operation touches. */
    for (size_t k = 0; k < nt; k++) {
        spool_task_t *t = add('P', NULL, NULL, tile(a, k, k));
        writes(t, k, k);
        for (size_t i = k + 1; i < nt; i++) {
            t = add('T', tile(a, k, k), NULL, tile(a, i, k));
            reads(t, k, k);
            writes(t, i, k);
        }
        for (size_t i = k + 1; i < nt; i++) {
            for (size_t j = k + 1; j <= i; j++) {
                t = add('G', tile(a, i, k), tile(a, j, k), tile(a, i, j));
                reads(t, i, k);
                reads(t, j, k);
                writes(t, i, j);
            }
        }
    }
    /* Submitted in reverse, so that order comes from the graph alone. */
    for (size_t i = ntasks; i-- > 0;)
        check(spool_task_submit(tasks[i]), "spool_task_submit");
    for (size_t i = 0; i < ntasks; i++) {
        check(spool_task_wait(tasks[i]), "spool_task_wait");
        spool_task_release(tasks[i]);
    }

    /* The same operations in order, on this thread. */
    for (size_t k = 0; k < nt; k++) {
        potrf(tile(seq, k, k));
        for (size_t i = k + 1; i < nt; i++)
            trsm(tile(seq, k, k), tile(seq, i, k));
        for (size_t i = k + 1; i < nt; i++)
            for (size_t j = k + 1; j <= i; j++)
                gemm(tile(seq, i, k), tile(seq, j, k), tile(seq, i, j));
    }
    double diff = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t j = 0; j <= i; j++)
            for (size_t e = 0; e < ts * ts; e++)
                diff = fmax(diff, fabs(tile(a, i, j)[e] - tile(seq, i, j)[e]));
    printf("cholesky_tasks: %zu x %zu tiles of %zu, %zu tasks on %u threads; largest "
           "difference from the sequential factor %.3g\n",
           nt, nt, ts, ntasks, spool_current_num_threads(), diff);
    for (size_t i = 0; i < nt * nt; i++)
        free(deps[i].readers);
    free(deps);
    free(tasks);
    free(ops);
    free(a);
    free(seq);
    return diff == 0 ? 0 : 1; /* the same operations in a dependency-respecting order */
}
