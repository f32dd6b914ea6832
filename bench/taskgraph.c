/*
 * spool-taskgraph (see taskgraph.h): per-task cost of a task graph on
 * spool, OpenMP and oneTBB (those built in), medians of RUNS runs, each
 * building the graph and running it to the end, at each thread count.
 *
 *   spool-taskgraph [-n RUNS] [-t 1,2,...] [-s N] [-w chain,fan,dag] [-p PEER,...]
 *
 * -p runs only the peers named (spool, openmp, onetbb); the others print
 * n/a.  libgomp slows down sharply with many tasks outstanding, so that
 * OpenMP needs a smaller -s than the others (doc/performance.md).
 *
 * Prints one line per graph, thread count and peer: the median seconds, the
 * nanoseconds per task, and the ratio to the fastest peer of that line's
 * graph and thread count.  Every run's result is checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "median.h"
#include "taskgraph.h"

/* The task body and its check, shared with the other peers' files. */
atomic_int *tg_slots;
atomic_long tg_good;
char tg_kind;
long tg_n;

void tg_body(long i);
long tg_good_count(void);
long tg_good_count(void)
{
    return atomic_load(&tg_good);
}

void tg_body(long i)
{
    long preds[TASKGRAPH_MAX_PREDS];
    int ok = 1;
    if (tg_kind == 'f' && i == tg_n + 1) {
        for (long j = 1; j <= tg_n; j++)
            ok &= atomic_load_explicit(&tg_slots[j], memory_order_relaxed);
    } else {
        unsigned k = taskgraph_preds(tg_kind, tg_n, i, preds);
        for (unsigned j = 0; j < k; j++)
            ok &= atomic_load_explicit(&tg_slots[preds[j]], memory_order_relaxed);
    }
    atomic_store_explicit(&tg_slots[i], 1, memory_order_relaxed);
    if (ok)
        atomic_fetch_add_explicit(&tg_good, 1, memory_order_relaxed);
}

/* ---- spool ------------------------------------------------------------------ */

static void spool_body(void *arg)
{
    tg_body((long)(intptr_t)arg);
}

typedef struct build {
    long count;
    spool_task_t **t;
    int err;
} build_t;

static void spool_build_and_run(void *arg)
{
    build_t *b = arg;
    long count = b->count;
    for (long i = 0; i < count && b->err == 0; i++)
        b->err = spool_task_create(NULL, spool_body, (void *)(intptr_t)i, &b->t[i]);
    long preds[TASKGRAPH_MAX_PREDS];
    for (long i = 0; i < count && b->err == 0; i++) {
        if (tg_kind == 'f' && i == tg_n + 1) {
            for (long j = 1; j <= tg_n && b->err == 0; j++)
                b->err = spool_task_precede(b->t[j], b->t[i]);
            continue;
        }
        unsigned k = taskgraph_preds(tg_kind, tg_n, i, preds);
        for (unsigned j = 0; j < k && b->err == 0; j++)
            b->err = spool_task_precede(b->t[preds[j]], b->t[i]);
    }
    for (long i = count; i-- > 0 && b->err == 0;)
        b->err = spool_task_submit(b->t[i]);
    for (long i = 0; i < count && b->err == 0; i++)
        b->err = spool_task_wait(b->t[i]);
    for (long i = 0; i < count; i++)
        spool_task_release(b->t[i]);
}

static long spool_run(int threads, double *seconds)
{
    spool_config_t c = SPOOL_CONFIG_INIT;
    c.num_threads = (unsigned)threads;
    spool_pool_t *pool;
    if (spool_pool_create(&c, &pool) != 0)
        return -1;
    long count = taskgraph_count(tg_kind, tg_n);
    build_t b = {count, malloc((size_t)count * sizeof *b.t), 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    spool_pool_install(pool, spool_build_and_run, &b);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    free(b.t);
    spool_pool_destroy(pool);
    return b.err == 0 ? atomic_load(&tg_good) : -1;
}

/* The other peers (taskgraph_omp.c, taskgraph_tbb.cpp): -1 if not built or
 * no such graph. */
#ifdef SPOOL_BENCH_OPENMP
long tg_omp_run(int threads, double *seconds);
#endif
#ifdef SPOOL_BENCH_TBB
long tg_tbb_run(int threads, double *seconds);
#endif

typedef struct peer {
    const char *name;
    long (*run)(int threads, double *seconds);
} peer_t;

static const peer_t peers[] = {
    {"spool", spool_run},
#ifdef SPOOL_BENCH_OPENMP
    {"openmp", tg_omp_run},
#endif
#ifdef SPOOL_BENCH_TBB
    {"onetbb", tg_tbb_run},
#endif
};
enum { NPEERS = sizeof peers / sizeof *peers };

int main(int argc, char **argv)
{
    int runs = 5;
    long n = 1000000;
    char threads_arg[64] = "1,2", workloads[64] = "chain,fan,dag", only[64] = "";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-s") == 0)
            n = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            snprintf(threads_arg, sizeof threads_arg, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-p") == 0)
            snprintf(only, sizeof only, ",%s,", argv[i + 1]);
        else if (strcmp(argv[i], "-w") == 0)
            snprintf(workloads, sizeof workloads, "%s", argv[i + 1]);
    }
    if (runs < 1 || n < 1)
        return 2;
    printf("graph  n        T  peer     median_s   ns_per_task  vs_best\n");
    int failed = 0;
    for (char *w = strtok(workloads, ","); w != NULL; w = strtok(NULL, ",")) {
        tg_kind = w[0];
        tg_n = n;
        long count = taskgraph_count(tg_kind, n);
        char tlist[64];
        snprintf(tlist, sizeof tlist, "%s", threads_arg);
        char *save = NULL;
        for (char *t = strtok_r(tlist, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
            int threads = atoi(t);
            double med[NPEERS];
            for (int p = 0; p < NPEERS; p++) {
                double *secs = malloc((size_t)runs * sizeof *secs);
                med[p] = -1;
                char name[16];
                snprintf(name, sizeof name, ",%s,", peers[p].name);
                if (only[0] != '\0' && strstr(only, name) == NULL) {
                    free(secs);
                    continue; /* not asked for: n/a */
                }
                for (int r = 0; r < runs; r++) {
                    tg_slots = calloc((size_t)count, sizeof *tg_slots);
                    atomic_store(&tg_good, 0);
                    long good = peers[p].run(threads, &secs[r]);
                    free(tg_slots);
                    if (good < 0) {
                        secs[0] = -1;
                        break;
                    }
                    if (good != count) {
                        fprintf(stderr, "spool-taskgraph: %s %s T=%d: %ld of %ld tasks saw "
                                        "their predecessors done\n",
                                peers[p].name, w, threads, good, count);
                        failed = 1;
                    }
                }
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
                    printf("%-6s %-8ld %-2d %-8s n/a\n", w, n, threads, peers[p].name);
                else
                    printf("%-6s %-8ld %-2d %-8s %-10.6f %-12.1f %.2f\n", w, n, threads,
                           peers[p].name, med[p], 1e9 * med[p] / (double)count, med[p] / best);
            }
        }
    }
    return failed;
}
