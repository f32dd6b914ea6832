/*
 * spool-search (see search.h): early-exit search on spool against a
 * sequential scan, OpenMP and oneTBB (those built in); medians of RUNS runs
 * at each thread count, each run's answer checked.
 *
 *   spool-search [-n RUNS] [-t 1,2,...] [-s N] [-g MS]
 *
 * Cases: first and any, with the match at 1% or 50% of the range, or none.
 * spool is timed from main (the search handed to a worker and back),
 * spool/in on the worker that searches (see spool_in_run).  -g MS: runs
 * go round the peers, each after MS milliseconds of idle (see main).
 * Prints one line per case, thread count and peer: the median seconds, the
 * ratio to the sequential scan and the ratio to the fastest peer.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "median.h"
#include "search.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

size_t search_scan(const uint32_t *a, uint32_t key, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++)
        if (search_hash(a[i]) == key)
            return i;
    return e;
}

static size_t seq_run(const search_t *s, int threads)
{
    (void)threads;
    return search_scan(s->a, s->key, 0, s->n);
}

static size_t spool_find_part(void *ctx, size_t b, size_t e)
{
    const search_t *s = ctx;
    return search_scan(s->a, s->key, b, e);
}

typedef struct spool_call {
    const search_t *s;
    size_t got;
    double secs; /* spool/in: the search's time on the worker */
} spool_call_t;

static void spool_search(void *arg)
{
    spool_call_t *c = arg;
    const search_t *s = c->s;
    double t0 = now();
    c->got = s->any ? spool_find_any(0, s->n, NULL, spool_find_part, (void *)s)
                    : spool_find_first(0, s->n, NULL, spool_find_part, (void *)s);
    c->secs = now() - t0;
}

/* Created outside the timing, as the other peers' threads are. */
static spool_pool_t *spool_pool;

/* A peer may time itself (spool/in): it sets this to its seconds. */
static double self_timed = -1;

static size_t spool_run(const search_t *s, int threads)
{
    (void)threads;
    spool_call_t c = {s, 0, 0};
    if (spool_pool_install(spool_pool, spool_search, &c) != 0)
        return (size_t)-1;
    return c.got;
}

/* The search timed on the worker that runs it: a caller that is one of
 * the pool's threads, as OpenMP's master is one of its team and oneTBB's
 * caller one of its arena's threads; spool_run adds the hand-off from
 * main to a worker and back. */
static size_t spool_in_run(const search_t *s, int threads)
{
    (void)threads;
    spool_call_t c = {s, 0, 0};
    if (spool_pool_install(spool_pool, spool_search, &c) != 0)
        return (size_t)-1;
    self_timed = c.secs;
    return c.got;
}

size_t search_omp(const search_t *s, int threads);
size_t search_tbb(const search_t *s, int threads);

typedef struct peer {
    const char *name;
    size_t (*run)(const search_t *s, int threads);
} peer_t;

static const peer_t peers[] = {
    {"seq", seq_run},
    {"spool", spool_run},
    {"spool/in", spool_in_run},
#ifdef SPOOL_BENCH_OPENMP
    {"openmp", search_omp},
#endif
#ifdef SPOOL_BENCH_TBB
    {"onetbb", search_tbb},
#endif
};
enum { NPEERS = sizeof peers / sizeof peers[0] };

int main(int argc, char **argv)
{
    int runs = 5, gap_ms = -1;
    size_t n = (size_t)1 << 24;
    char threads_arg[64] = "1,2";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-g") == 0)
            gap_ms = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-s") == 0)
            n = (size_t)atol(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            snprintf(threads_arg, sizeof threads_arg, "%s", argv[i + 1]);
    }
    if (runs < 1 || n < 2)
        return 2;
    uint32_t *a = malloc(n * sizeof *a);
    double *secs = malloc((size_t)runs * NPEERS * sizeof *secs);
    if (a == NULL || secs == NULL)
        return 2;
    for (size_t i = 0; i < n; i++)
        a[i] = (uint32_t)(i + 1);
    static const struct {
        const char *name;
        int any, percent; /* percent < 0: no match */
    } cases[] = {{"first/1%", 0, 1},  {"first/50%", 0, 50}, {"first/none", 0, -1},
                 {"any/1%", 1, 1},    {"any/50%", 1, 50},   {"any/none", 1, -1}};
    printf("case        n         T  peer     median_s    vs_seq  vs_best\n");
    int failed = 0;
    char tlist[64];
    snprintf(tlist, sizeof tlist, "%s", threads_arg);
    for (char *t = strtok(tlist, ","); t != NULL; t = strtok(NULL, ",")) {
        int threads = atoi(t);
        spool_config_t config = {.num_threads = (unsigned)threads};
        if (threads < 1 || spool_pool_create(&config, &spool_pool) != 0)
            return 2;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            size_t at = cases[c].percent < 0 ? n : n / 100 * (size_t)cases[c].percent;
            search_t s = {a, n, cases[c].percent < 0 ? search_hash(0) : search_hash(a[at]),
                          cases[c].any};
            /* Without -g, each peer's runs back to back (its threads warm
             * from its last run, as in a program that searches again and
             * again); with -g, runs go round the peers, each after gap_ms
             * of idle (every pool's threads asleep: a search now and then;
             * libgomp's and oneTBB's threads spin for a while after a run,
             * and would take a CPU from the next peer's). */
            double med[NPEERS];
            for (int p = 0; p < NPEERS; p++)
                med[p] = 0;
            for (int i = 0; i < runs * NPEERS; i++) {
                int p = gap_ms < 0 ? i / runs : i % NPEERS;
                int r = gap_ms < 0 ? i % runs : i / NPEERS;
                if (med[p] < 0)
                    continue; /* n/a */
                if (gap_ms > 0)
                    nanosleep(&(struct timespec){gap_ms / 1000, gap_ms % 1000 * 1000000L}, NULL);
                self_timed = -1;
                double t0 = now();
                size_t got = peers[p].run(&s, threads);
                secs[p * runs + r] = self_timed >= 0 ? self_timed : now() - t0;
                if (got == (size_t)-2) {
                    med[p] = -1;
                    continue;
                }
                if (got != at) {
                    fprintf(stderr, "spool-search: %s %s T=%d: got %zu, want %zu\n",
                            peers[p].name, cases[c].name, threads, got, at);
                    failed = 1;
                }
            }
            for (int p = 0; p < NPEERS; p++)
                if (med[p] == 0)
                    med[p] = bench_median(secs + p * runs, runs);
            double best = -1;
            for (int p = 1; p < NPEERS; p++)
                if (med[p] > 0 && (best < 0 || med[p] < best))
                    best = med[p];
            for (int p = 0; p < NPEERS; p++) {
                if (med[p] < 0)
                    printf("%-11s %-9zu %-2d %-8s n/a\n", cases[c].name, n, threads, peers[p].name);
                else if (p == 0)
                    printf("%-11s %-9zu %-2d %-8s %-11.6f 1.000   -\n", cases[c].name, n, threads,
                           peers[p].name, med[p]);
                else
                    printf("%-11s %-9zu %-2d %-8s %-11.6f %-7.3f %.2f\n", cases[c].name, n, threads,
                           peers[p].name, med[p], med[p] / med[0], med[p] / best);
            }
        }
        spool_pool_destroy(spool_pool);
    }
    free(a);
    free(secs);
    return failed;
}
