/*
 * spool-forks: fine-grained fork-join programs in Lace's style, each fork
 * a few nanoseconds of work, timed against the same recursion run
 * sequentially (the cost of a fork is what is measured):
 *
 *   knapsack N     exhaustive 0/1 knapsack of N items (weights and values
 *                  from a fixed hash, capacity half the total weight): at
 *                  every item both choices are forked while the item fits
 *   montecarlo N   pi from N samples (N rounded down to a power of two),
 *                  the range halved down to one sample per call, a fork at
 *                  every halving
 *
 *   spool-forks [-n RUNS] [-t 1,2,...] [-w knapsack,montecarlo]
 *               [-k ITEMS] [-m SAMPLES]
 *
 * Forms: spool (spool_join), spool/fork (spool_fork_inline and
 * spool_sync_inline, the join compiled into the recursion), spool/typed
 * (typed tasks, spool_typed.h: SPOOL_SPAWN, SPOOL_CALL, SPOOL_SYNC), and
 * spool/typed64 (the same with a 64-byte argument more, too large for a
 * frame deque's cell: the frame stack and a join), each inside a pool of
 * T threads through one install.  Prints the median seconds, the
 * ratio to the sequential recursion, and checks every run's result.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>
#include <spool_inline.h>
#include <spool_typed.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "median.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* ---- knapsack -------------------------------------------------------------- */

enum { MAX_ITEMS = 40 };
static int items;
static long weight[MAX_ITEMS], value[MAX_ITEMS];

static long ks_seq(int i, long cap)
{
    if (i == items)
        return 0;
    long skip = ks_seq(i + 1, cap);
    if (weight[i] > cap)
        return skip;
    long take = value[i] + ks_seq(i + 1, cap - weight[i]);
    return take > skip ? take : skip;
}

typedef struct ks {
    int i;
    long cap, best;
} ks_t;

static void ks_join(void *arg)
{
    ks_t *k = arg;
    if (k->i == items) {
        k->best = 0;
        return;
    }
    ks_t skip = {k->i + 1, k->cap, 0};
    if (weight[k->i] > k->cap) {
        ks_join(&skip);
        k->best = skip.best;
        return;
    }
    ks_t take = {k->i + 1, k->cap - weight[k->i], 0};
    spool_join(ks_join, &skip, ks_join, &take);
    take.best += value[k->i];
    k->best = take.best > skip.best ? take.best : skip.best;
}

static long ks_fork(int i, long cap);

static void ks_fork_b(void *arg)
{
    ks_t *k = arg;
    k->best = ks_fork(k->i, k->cap);
}

static long ks_fork(int i, long cap)
{
    if (i == items)
        return 0;
    if (weight[i] > cap)
        return ks_fork(i + 1, cap);
    ks_t take = {i + 1, cap - weight[i], 0};
    spool_fork_t f;
    spool_fork_inline(&f, ks_fork_b, &take);
    long skip = ks_fork(i + 1, cap);
    if (spool_sync_inline(&f))
        take.best = ks_fork(i + 1, cap - weight[i]);
    take.best += value[i];
    return take.best > skip ? take.best : skip;
}

SPOOL_TASK_2(long, ks_task, int, i, long, cap)
{
    if (i == items)
        return 0;
    if (weight[i] > cap)
        return SPOOL_CALL(ks_task, i + 1, cap);
    SPOOL_SPAWN(ks_task, i + 1, cap - weight[i]);
    long skip = SPOOL_CALL(ks_task, i + 1, cap);
    long take = value[i] + SPOOL_SYNC(ks_task);
    return take > skip ? take : skip;
}

/* A typed task whose frame is too large for a cell (an argument of 64
 * bytes, passed down unchanged): its spawns take the frame stack and a
 * join (spool_typed.h), for their cost beside a cell's. */
typedef struct wide {
    long pad[8];
} wide_t;

SPOOL_TASK_3(long, ks_wide, int, i, long, cap, wide_t, w)
{
    if (i == items)
        return w.pad[7];
    if (weight[i] > cap)
        return SPOOL_CALL(ks_wide, i + 1, cap, w);
    SPOOL_SPAWN(ks_wide, i + 1, cap - weight[i], w);
    long skip = SPOOL_CALL(ks_wide, i + 1, cap, w);
    long take = value[i] + SPOOL_SYNC(ks_wide);
    return take > skip ? take : skip;
}

/* ---- Monte Carlo ----------------------------------------------------------- */

/* 1 if sample s falls inside the quarter circle. */
static long sample(uint64_t s)
{
    uint64_t r = mix(s);
    double x = (double)(r >> 32) / 4294967296.0, y = (double)(r & 0xffffffffu) / 4294967296.0;
    return x * x + y * y < 1.0;
}

static long mc_seq(uint64_t lo, uint64_t hi)
{
    if (hi - lo == 1)
        return sample(lo);
    uint64_t mid = lo + (hi - lo) / 2;
    return mc_seq(lo, mid) + mc_seq(mid, hi);
}

typedef struct mc {
    uint64_t lo, hi;
    long in;
} mc_t;

static void mc_join(void *arg)
{
    mc_t *m = arg;
    if (m->hi - m->lo == 1) {
        m->in = sample(m->lo);
        return;
    }
    uint64_t mid = m->lo + (m->hi - m->lo) / 2;
    mc_t a = {m->lo, mid, 0}, b = {mid, m->hi, 0};
    spool_join(mc_join, &a, mc_join, &b);
    m->in = a.in + b.in;
}

static long mc_fork(uint64_t lo, uint64_t hi);

static void mc_fork_b(void *arg)
{
    mc_t *m = arg;
    m->in = mc_fork(m->lo, m->hi);
}

static long mc_fork(uint64_t lo, uint64_t hi)
{
    if (hi - lo == 1)
        return sample(lo);
    uint64_t mid = lo + (hi - lo) / 2;
    mc_t b = {mid, hi, 0};
    spool_fork_t f;
    spool_fork_inline(&f, mc_fork_b, &b);
    long a = mc_fork(lo, mid);
    if (spool_sync_inline(&f))
        b.in = mc_fork(mid, hi);
    return a + b.in;
}

SPOOL_TASK_2(long, mc_task, uint64_t, lo, uint64_t, hi)
{
    if (hi - lo == 1)
        return sample(lo);
    uint64_t mid = lo + (hi - lo) / 2;
    SPOOL_SPAWN(mc_task, mid, hi);
    long a = SPOOL_CALL(mc_task, lo, mid);
    return a + SPOOL_SYNC(mc_task);
}

SPOOL_TASK_3(long, mc_wide, uint64_t, lo, uint64_t, hi, wide_t, w)
{
    if (hi - lo == 1)
        return sample(lo) + w.pad[7];
    uint64_t mid = lo + (hi - lo) / 2;
    SPOOL_SPAWN(mc_wide, mid, hi, w);
    long a = SPOOL_CALL(mc_wide, lo, mid, w);
    return a + SPOOL_SYNC(mc_wide);
}

/* ---- the driver ------------------------------------------------------------ */

typedef struct run {
    int knapsack, form; /* which program, which form (1 join, 2 fork, 3 typed, 4 wide) */
    long n, result;
} run_t;

static void in_pool(void *arg)
{
    run_t *r = arg;
    wide_t w = {{0}};
    if (r->form == 3) {
        r->result = r->knapsack ? SPOOL_RUN(ks_task, 0, r->n)
                                : SPOOL_RUN(mc_task, 0, (uint64_t)r->n);
    } else if (r->form == 4) {
        r->result = r->knapsack ? SPOOL_RUN(ks_wide, 0, r->n, w)
                                : SPOOL_RUN(mc_wide, 0, (uint64_t)r->n, w);
    } else if (r->knapsack) {
        if (r->form == 2) {
            r->result = ks_fork(0, r->n);
        } else {
            ks_t k = {0, r->n, 0};
            ks_join(&k);
            r->result = k.best;
        }
    } else if (r->form == 2) {
        r->result = mc_fork(0, (uint64_t)r->n);
    } else {
        mc_t m = {0, (uint64_t)r->n, 0};
        mc_join(&m);
        r->result = m.in;
    }
}

int main(int argc, char **argv)
{
    int runs = 5;
    long samples = 1L << 22;
    char threads_arg[64] = "1,2", work_arg[64] = "knapsack,montecarlo";
    items = 26;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-k") == 0)
            items = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-m") == 0)
            samples = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            snprintf(threads_arg, sizeof threads_arg, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-w") == 0)
            snprintf(work_arg, sizeof work_arg, "%s", argv[i + 1]);
    }
    if (runs < 1 || items < 1 || items > MAX_ITEMS || samples < 1)
        return 2;
    long pow2 = 1;
    while (pow2 <= samples / 2)
        pow2 *= 2;
    samples = pow2;
    long total = 0;
    for (int i = 0; i < items; i++) {
        weight[i] = 1 + (long)(mix((uint64_t)i) % 100);
        value[i] = 1 + (long)(mix((uint64_t)i + 1000) % 100);
        total += weight[i];
    }
    enum { FORMS = 5 };
    double *secs = malloc((size_t)runs * FORMS * sizeof *secs);
    if (secs == NULL)
        return 2;
    printf("program     n         T  form           median_s    vs_seq\n");
    int failed = 0;
    char wlist[64];
    snprintf(wlist, sizeof wlist, "%s", work_arg);
    char *wsave = NULL, *tsave = NULL;
    for (char *w = strtok_r(wlist, ",", &wsave); w != NULL; w = strtok_r(NULL, ",", &wsave)) {
        int knapsack = strcmp(w, "knapsack") == 0;
        if (!knapsack && strcmp(w, "montecarlo") != 0)
            return 2;
        long n = knapsack ? total / 2 : samples; /* the capacity, or the samples */
        long want = knapsack ? ks_seq(0, n) : mc_seq(0, (uint64_t)n);
        char tlist[64];
        snprintf(tlist, sizeof tlist, "%s", threads_arg);
        for (char *t = strtok_r(tlist, ",", &tsave); t != NULL; t = strtok_r(NULL, ",", &tsave)) {
            int threads = atoi(t);
            spool_config_t config = {.num_threads = (unsigned)threads};
            spool_pool_t *pool;
            if (threads < 1 || spool_pool_create(&config, &pool) != 0)
                return 2;
            /* Runs go round the forms (seq, spool, spool/fork, spool/typed,
             * spool/typed64). */
            for (int r = 0; r < runs; r++)
                for (int f = 0; f < FORMS; f++) {
                    run_t run = {knapsack, f, n, 0};
                    double a = now();
                    if (f == 0)
                        run.result = knapsack ? ks_seq(0, n) : mc_seq(0, (uint64_t)n);
                    else if (spool_pool_install(pool, in_pool, &run) != 0)
                        return 2;
                    secs[f * runs + r] = now() - a;
                    if (run.result != want) {
                        fprintf(stderr, "spool-forks: %s form %d T=%d: %ld, want %ld\n", w, f,
                                threads, run.result, want);
                        failed = 1;
                    }
                }
            static const char *const forms[] = {"seq", "spool", "spool/fork", "spool/typed",
                                                "spool/typed64"};
            double seq = bench_median(secs, runs);
            for (int f = 0; f < FORMS; f++) {
                double m = f == 0 ? seq : bench_median(secs + f * runs, runs);
                printf("%-11s %-9ld %-2d %-14s %-11.6f %.3f\n", w, knapsack ? (long)items : n,
                       threads, forms[f], m, m / seq);
            }
            spool_pool_destroy(pool);
        }
    }
    free(secs);
    return failed;
}
