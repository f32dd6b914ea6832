/*
 * spool-sparselu (see sparselu.h): a blocked sparse LU, sequentially and
 * with each peer's tasks, medians of RUNS runs at each thread count.
 *
 *   spool-sparselu [-n RUNS] [-t 1,2,...] [-b NB] [-s BS] [-p PEER,...]
 *
 * Peers: seq (the loop, one thread), spool/scope (each round's tasks
 * spawned into a spool_scope), spool/group (into a task group, as OpenMP's
 * taskwait), spool/fifo (a FIFO task group: each thread runs its tasks in
 * the order made, as libgomp's queue does), openmp (tasks and taskwait),
 * when built with it.  Each run
 * factors a fresh matrix; its checksum must equal the sequential one
 * (each block is updated by one task at a time, in the same order, so the
 * results are bit-identical).  Prints one line per thread count and peer:
 * the median seconds and the ratio to the best peer of that line.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "median.h"
#include "sparselu.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- sequential ---------------------------------------------------------- */

static void lu_seq(lu_matrix_t *m)
{
    int nb = m->nb, bs = m->bs;
    for (int kk = 0; kk < nb; kk++) {
        float *d = *lu_at(m, kk, kk);
        lu_factor_diag(d, bs);
        for (int jj = kk + 1; jj < nb; jj++)
            if (*lu_at(m, kk, jj) != NULL)
                lu_row_update(d, *lu_at(m, kk, jj), bs);
        for (int ii = kk + 1; ii < nb; ii++)
            if (*lu_at(m, ii, kk) != NULL)
                lu_col_update(d, *lu_at(m, ii, kk), bs);
        for (int ii = kk + 1; ii < nb; ii++) {
            if (*lu_at(m, ii, kk) == NULL)
                continue;
            for (int jj = kk + 1; jj < nb; jj++)
                if (*lu_at(m, kk, jj) != NULL)
                    lu_trailing_task(m, kk, ii, jj);
        }
    }
}

/* ---- spool ----------------------------------------------------------------- */

typedef struct lu_round {
    lu_matrix_t *m;
    int kk;
} lu_round_t;

typedef struct lu_cell {
    lu_matrix_t *m;
    int kk, ii, jj;
} lu_cell_t;

static void row_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    const lu_cell_t *c = arg;
    lu_row_update(*lu_at(c->m, c->kk, c->kk), *lu_at(c->m, c->kk, c->jj), c->m->bs);
}

static void col_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    const lu_cell_t *c = arg;
    lu_col_update(*lu_at(c->m, c->kk, c->kk), *lu_at(c->m, c->ii, c->kk), c->m->bs);
}

static void trailing_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    const lu_cell_t *c = arg;
    lu_trailing_task(c->m, c->kk, c->ii, c->jj);
}

/* The round's row and column updates, spawned into scope. */
static void spawn_edges(spool_scope_t *scope, const lu_round_t *r)
{
    lu_matrix_t *m = r->m;
    int kk = r->kk;
    for (int jj = kk + 1; jj < m->nb; jj++)
        if (*lu_at(m, kk, jj) != NULL) {
            lu_cell_t c = {m, kk, kk, jj};
            spool_scope_spawn_copy(scope, row_job, &c, sizeof c);
        }
    for (int ii = kk + 1; ii < m->nb; ii++)
        if (*lu_at(m, ii, kk) != NULL) {
            lu_cell_t c = {m, kk, ii, kk};
            spool_scope_spawn_copy(scope, col_job, &c, sizeof c);
        }
}

static void spawn_trailing(spool_scope_t *scope, const lu_round_t *r)
{
    lu_matrix_t *m = r->m;
    int kk = r->kk;
    for (int ii = kk + 1; ii < m->nb; ii++) {
        if (*lu_at(m, ii, kk) == NULL)
            continue;
        for (int jj = kk + 1; jj < m->nb; jj++)
            if (*lu_at(m, kk, jj) != NULL) {
                lu_cell_t c = {m, kk, ii, jj};
                spool_scope_spawn_copy(scope, trailing_job, &c, sizeof c);
            }
    }
}

static void edges_body(spool_scope_t *scope, void *arg)
{
    spawn_edges(scope, arg);
}

static void trailing_body(spool_scope_t *scope, void *arg)
{
    spawn_trailing(scope, arg);
}

static void lu_spool_scope(void *arg)
{
    lu_matrix_t *m = arg;
    for (int kk = 0; kk < m->nb; kk++) {
        lu_factor_diag(*lu_at(m, kk, kk), m->bs);
        lu_round_t r = {m, kk};
        spool_scope(edges_body, &r);
        spool_scope(trailing_body, &r);
    }
}

static void lu_spool_group(void *arg)
{
    lu_matrix_t *m = arg;
    for (int kk = 0; kk < m->nb; kk++) {
        lu_factor_diag(*lu_at(m, kk, kk), m->bs);
        lu_round_t r = {m, kk};
        spool_group_t g;
        spool_group_init(&g);
        spawn_edges(spool_group_scope(&g), &r);
        spool_group_wait(&g);
        spool_group_init(&g);
        spawn_trailing(spool_group_scope(&g), &r);
        spool_group_wait(&g);
    }
}

/* As lu_spool_group, in FIFO groups: each thread runs its spawns in the
 * order it made them, as libgomp's task queue does. */
static void lu_spool_fifo(void *arg)
{
    lu_matrix_t *m = arg;
    for (int kk = 0; kk < m->nb; kk++) {
        lu_factor_diag(*lu_at(m, kk, kk), m->bs);
        lu_round_t r = {m, kk};
        spool_group_t g;
        spool_group_init_fifo(&g);
        spawn_edges(spool_group_scope(&g), &r);
        spool_group_wait(&g);
        spool_group_init_fifo(&g);
        spawn_trailing(spool_group_scope(&g), &r);
        spool_group_wait(&g);
    }
}

#ifdef SPOOL_BENCH_OPENMP
void lu_omp(lu_matrix_t *m, int threads);
#endif

/* ---- the driver ---------------------------------------------------------- */

typedef struct peer {
    const char *name;
    spool_fn root; /* spool's: run in a pool of the run's threads */
    int kind;      /* 0: seq, 1: spool, 2: openmp */
} peer_t;

static const peer_t peers[] = {
    {"seq", NULL, 0},
    {"spool/scope", lu_spool_scope, 1},
    {"spool/group", lu_spool_group, 1},
    {"spool/fifo", lu_spool_fifo, 1},
#ifdef SPOOL_BENCH_OPENMP
    {"openmp", NULL, 2},
#endif
};
enum { NPEERS = sizeof peers / sizeof *peers };

/* One run: seconds, or -1 if it could not run; *sum: its checksum.
 * spool's runs use pool, made once per peer and thread count, as OpenMP
 * keeps its team between parallel regions: the workers' allocations (the
 * blocks made on first use) then come from warm memory in every run. */
typedef struct lu_new {
    int nb, bs;
    lu_matrix_t *m;
} lu_new_t;

static void new_in_pool(void *arg)
{
    lu_new_t *n = arg;
    n->m = lu_matrix_new(n->nb, n->bs);
}

static double run_once(const peer_t *p, spool_pool_t *pool, int threads, int nb, int bs,
                       double *sum)
{
    /* The matrix is made by the thread that starts the factorisation, as
     * OpenMP's master thread does it: a worker of spool's pool. */
    lu_new_t made = {nb, bs, NULL};
    if (pool != NULL)
        spool_pool_install(pool, new_in_pool, &made);
    else
        new_in_pool(&made);
    lu_matrix_t *m = made.m;
    if (m == NULL)
        return -1;
    double t0 = now(), t1;
    if (p->kind == 0) {
        lu_seq(m);
    } else if (p->kind == 1) {
        if (pool == NULL) {
            lu_matrix_free(m);
            return -1;
        }
        spool_pool_install(pool, p->root, m);
    } else {
#ifdef SPOOL_BENCH_OPENMP
        lu_omp(m, threads);
#endif
    }
    t1 = now();
    *sum = lu_checksum(m);
    lu_matrix_free(m);
    return t1 - t0;
}

int main(int argc, char **argv)
{
    int runs = 5, nb = 50, bs = 40;
    char threads_arg[64] = "1,2", only[128] = "";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-b") == 0)
            nb = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-s") == 0)
            bs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            snprintf(threads_arg, sizeof threads_arg, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-p") == 0)
            snprintf(only, sizeof only, ",%s,", argv[i + 1]);
    }
    if (runs < 1 || nb < 1 || bs < 1)
        return 2;
    double want;
    {
        lu_matrix_t *m = lu_matrix_new(nb, bs);
        if (m == NULL)
            return 1;
        lu_seq(m);
        want = lu_checksum(m);
        lu_matrix_free(m);
    }
    printf("sparselu NB=%d BS=%d, checksum %.6g\n", nb, bs, want);
    printf("T  peer          median_s   vs_best\n");
    int failed = 0;
    char *save = NULL;
    for (char *t = strtok_r(threads_arg, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        int threads = atoi(t);
        double med[NPEERS];
        for (int p = 0; p < NPEERS; p++) {
            med[p] = -1;
            char name[24];
            snprintf(name, sizeof name, ",%s,", peers[p].name);
            if (only[0] != '\0' && strstr(only, name) == NULL)
                continue;
            double *secs = malloc((size_t)runs * sizeof *secs);
            if (secs == NULL)
                return 1;
            spool_pool_t *pool = NULL;
            if (peers[p].kind == 1) {
                spool_config_t c = SPOOL_CONFIG_INIT;
                c.num_threads = (unsigned)threads;
                if (spool_pool_create(&c, &pool) != 0)
                    pool = NULL;
            }
            for (int r = 0; r < runs; r++) {
                double sum = 0;
                secs[r] = run_once(&peers[p], pool, threads, nb, bs, &sum);
                if (secs[r] < 0 || sum != want) {
                    fprintf(stderr, "spool-sparselu: %s T=%d: checksum %.17g, want %.17g\n",
                            peers[p].name, threads, sum, want);
                    failed = 1;
                    secs[0] = -1;
                    break;
                }
            }
            if (pool != NULL)
                spool_pool_destroy(pool);
            if (secs[0] >= 0)
                med[p] = bench_median(secs, runs);
            free(secs);
        }
        double best = -1;
        for (int p = 0; p < NPEERS; p++)
            if (med[p] > 0 && (best < 0 || med[p] < best))
                best = med[p];
        for (int p = 0; p < NPEERS; p++) {
            if (med[p] < 0)
                printf("%-2d %-13s n/a\n", threads, peers[p].name);
            else
                printf("%-2d %-13s %-10.4f %.2f\n", threads, peers[p].name, med[p],
                       med[p] / best);
        }
    }
    return failed;
}
