/*
 * spool-stencil (see stencil.h): the stencil on spool against the
 * sequential loop, OpenMP and oneTBB (those built in); medians of RUNS runs
 * at each thread count and grid size, each run's grid checked.
 *
 *   spool-stencil [-n RUNS] [-t 1,2,...] [-s 65536,4194304] [-k STEPS]
 *
 * Forms: spool runs the steps on a worker of its pool (one install around
 * them), a spool_for per step with the default splitting; spool/static the
 * same with SPOOL_FOR_FIXED parts of n / T.  openmp: a parallel for
 * (static) per step; openmp/region: one parallel region around the steps,
 * a worksharing for (static) per step.  onetbb: a parallel_for per step
 * with the static partitioner; onetbb/affinity: one affinity_partitioner
 * across the steps.  Prints one line per size, thread count and form: the
 * median seconds, the ratio to the sequential loop and to the fastest form
 * of another pool.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "median.h"
#include "stencil.h"

void stencil_range(const double *in, double *out, size_t n, size_t b, size_t e)
{
    if (b == 0 && e > 0) {
        out[0] = in[0];
        b = 1;
    }
    if (e == n && b < e) {
        out[n - 1] = in[n - 1];
        e = n - 1;
    }
    for (size_t i = b; i < e; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void swap(stencil_t *s)
{
    double *t = s->u;
    s->u = s->v;
    s->v = t;
}

static int seq_run(stencil_t *s, int threads)
{
    (void)threads;
    for (int k = 0; k < s->steps; k++) {
        stencil_range(s->u, s->v, s->n, 0, s->n);
        swap(s);
    }
    return 0;
}

static void spool_step(void *ctx, size_t b, size_t e)
{
    stencil_t *s = ctx;
    stencil_range(s->u, s->v, s->n, b, e);
}

typedef struct spool_call {
    stencil_t *s;
    spool_for_opts_t opts;
} spool_call_t;

static void spool_steps(void *arg)
{
    spool_call_t *c = arg;
    for (int k = 0; k < c->s->steps; k++) {
        spool_for(0, c->s->n, &c->opts, spool_step, c->s);
        swap(c->s);
    }
}

/* Created outside the timing, as the other peers' threads are. */
static spool_pool_t *spool_pool;

static int spool_run(stencil_t *s, int threads)
{
    spool_call_t c = {s, {0, 0, 0}};
    if (s->form != NULL) /* static: one fixed part per thread */
        c.opts = (spool_for_opts_t){(s->n + (size_t)threads - 1) / (size_t)threads, 0,
                                    SPOOL_FOR_FIXED};
    return spool_pool_install(spool_pool, spool_steps, &c) == 0 ? 0 : -1;
}

typedef struct peer {
    const char *name; /* peer[/form] */
    int (*run)(stencil_t *s, int threads);
} peer_t;

static const peer_t peers[] = {
    {"seq", seq_run},
    {"spool", spool_run},
    {"spool/static", spool_run},
#ifdef SPOOL_BENCH_OPENMP
    {"openmp", stencil_omp},
    {"openmp/region", stencil_omp},
#endif
#ifdef SPOOL_BENCH_TBB
    {"onetbb", stencil_tbb},
    {"onetbb/affinity", stencil_tbb},
#endif
};
enum { NPEERS = sizeof peers / sizeof peers[0] };

static void fill(double *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        u[i] = (double)(i * 7919 % 1000) / 1000.0;
}

int main(int argc, char **argv)
{
    int runs = 5, steps = 1000;
    char threads_arg[64] = "1,2", sizes_arg[64] = "65536";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-k") == 0)
            steps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            snprintf(threads_arg, sizeof threads_arg, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-s") == 0)
            snprintf(sizes_arg, sizeof sizes_arg, "%s", argv[i + 1]);
    }
    if (runs < 1 || steps < 0)
        return 2;
    double *secs = malloc((size_t)runs * sizeof *secs);
    if (secs == NULL)
        return 2;
    printf("size      steps T  form             median_s    vs_seq  vs_best\n");
    int failed = 0;
    char slist[64];
    snprintf(slist, sizeof slist, "%s", sizes_arg);
    char *ssave = NULL, *tsave = NULL;
    for (char *sz = strtok_r(slist, ",", &ssave); sz != NULL; sz = strtok_r(NULL, ",", &ssave)) {
        size_t n = (size_t)atol(sz);
        double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
        double *want = malloc(n * sizeof *want), *scratch = malloc(n * sizeof *scratch);
        if (n < 3 || u == NULL || v == NULL || want == NULL || scratch == NULL)
            return 2;
        fill(want, n);
        memcpy(scratch, want, n * sizeof *want);
        stencil_t ref = {want, scratch, n, steps, NULL};
        seq_run(&ref, 1);
        const double *expect = ref.u;
        char tlist[64];
        snprintf(tlist, sizeof tlist, "%s", threads_arg);
        for (char *t = strtok_r(tlist, ",", &tsave); t != NULL; t = strtok_r(NULL, ",", &tsave)) {
            int threads = atoi(t);
            spool_config_t config = {.num_threads = (unsigned)threads};
            if (threads < 1 || spool_pool_create(&config, &spool_pool) != 0)
                return 2;
            double med[NPEERS];
            for (int p = 0; p < NPEERS; p++) {
                const char *slash = strchr(peers[p].name, '/');
                med[p] = -1;
                for (int r = 0; r < runs; r++) {
                    fill(u, n);
                    memcpy(v, u, n * sizeof *u);
                    stencil_t s = {u, v, n, steps, slash != NULL ? slash + 1 : NULL};
                    double t0 = now();
                    int err = peers[p].run(&s, threads);
                    secs[r] = now() - t0;
                    if (err != 0) {
                        secs[0] = -1;
                        break;
                    }
                    if (memcmp(s.u, expect, n * sizeof *u) != 0) {
                        fprintf(stderr, "spool-stencil: %s n=%zu T=%d: the grid differs\n",
                                peers[p].name, n, threads);
                        failed = 1;
                    }
                }
                if (secs[0] >= 0)
                    med[p] = bench_median(secs, runs);
            }
            for (int p = 0; p < NPEERS; p++) {
                double best = -1; /* the fastest form of another pool */
                size_t stem = strcspn(peers[p].name, "/");
                for (int q = 1; q < NPEERS; q++)
                    if (med[q] > 0 && strncmp(peers[q].name, peers[p].name, stem) != 0 &&
                        (best < 0 || med[q] < best))
                        best = med[q];
                if (med[p] < 0)
                    printf("%-9zu %-5d %-2d %-16s n/a\n", n, steps, threads, peers[p].name);
                else if (p == 0 || best < 0)
                    printf("%-9zu %-5d %-2d %-16s %-11.6f %-7.3f -\n", n, steps, threads,
                           peers[p].name, med[p], med[p] / med[0]);
                else
                    printf("%-9zu %-5d %-2d %-16s %-11.6f %-7.3f %.2f\n", n, steps, threads,
                           peers[p].name, med[p], med[p] / med[0], med[p] / best);
            }
            spool_pool_destroy(spool_pool);
        }
        free(u);
        free(v);
        free(want);
        free(scratch);
    }
    free(secs);
    return failed;
}
