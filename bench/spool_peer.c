/*
 * spool-peer: spool on the team's peer comparison, with its command line
 * and its one output line:
 *
 *   spool-peer WORKLOAD N THREADS
 *   NAME workload n threads seconds result cpu_s=X maxrss_kb=Y os_threads=Z csw=W
 *        [p50_us=A p99_us=B]
 *
 * NAME is the program's own name: spool for spool-peer, spool-fork for
 * spool-peer-fork, and a copy's name as it is (the harness's build/NAME),
 * so that each variant gets rows of its own without a filter in a pipe
 * (a process started beside the timed section took a vCPU from it here).
 *
 * WORKLOAD is fib, spawn-lifo, spawn-fifo, nqueens, sporadic or wake (the
 * kernels are spool-bench's, kernels.h).  The pool is created and warmed up
 * with a small instance (fib 20, spawn 1000, nqueens 8, others 10) first.
 * cpu_s and csw are the process's CPU time and context switches (a sleep, a
 * yield or a preemption that gives the CPU away) in the timed run.
 *
 * The data-parallel workloads (dp.h) take WORKLOAD[/VARIANT]:
 * triad[/static] (SPOOL_FOR_FIXED, one part per thread),
 * mandelbrot[/dynamic] (max_len 1: a part per row), small-loops[/inside],
 * sum[/fixed], nested[/outer], loop-in-join, broadcast; their line is
 *   NAME[/VARIANT] workload n threads seconds result cpu_s=X maxrss_kb=Y os_threads=Z csw=W
 * with the result printed with %a for small-loops, sum and loop-in-join.
 * Variants spool has no form of (OpenMP schedules, oneTBB emulations) print
 * n/a.
 *
 * With SPOOL_PEER_COUNTS set in the environment and spool built with
 * -DSPOOL_STATS=ON, a second line, on stderr, gives what the timed run
 * cost, summed over the pool's workers and divided by its operations (a
 * spawn, an nqueens node, a join of fib, a call of small-loops or
 * broadcast, else a job run):
 *   counts NAME workload n threads per=UNIT jobs=.. steals=.. failed_steals=.. ...
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spool.h>

#include "dp.h"
#include "kernels.h"

static char peer_name[32] = "spool";

/* peer_name from argv[0] (see the top of this file). */
static void set_peer_name(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    base = base != NULL ? base + 1 : argv0;
    if (strncmp(base, "spool-peer", 10) == 0)
        snprintf(peer_name, sizeof peer_name, "spool%s", base + 10);
    else if (*base != '\0')
        snprintf(peer_name, sizeof peer_name, "%s", base);
}

/* ---- per-operation counters (SPOOL_PEER_COUNTS) ---------------------------- */

/* Every worker's counters of pool summed into sum; false if the build
 * keeps none. */
static bool counts_take(spool_pool_t *pool, spool_worker_stats_t *sum)
{
    memset(sum, 0, sizeof *sum);
    if (pool == NULL || getenv("SPOOL_PEER_COUNTS") == NULL)
        return false;
    unsigned long long *to = (unsigned long long *)(void *)sum;
    for (unsigned i = 0; i < spool_pool_num_threads(pool); i++) {
        spool_worker_stats_t st;
        if (spool_pool_stats(pool, i, &st, sizeof st) != 0)
            return false;
        const unsigned long long *from = (const unsigned long long *)(const void *)&st;
        for (size_t k = 0; k < sizeof st / sizeof *from; k++)
            to[k] += from[k];
    }
    return true;
}

/* Prints the counts line: after - before, per operation of workload w. */
static void counts_print(const char *peer, const char *w, long n, int threads,
                         const spool_worker_stats_t *before, const spool_worker_stats_t *after)
{
    const char *unit = "job";
    double ops = (double)(after->jobs_executed - before->jobs_executed);
    if (strncmp(w, "spawn-", 6) == 0) {
        unit = "spawn";
        ops = (double)n;
    } else if (strcmp(w, "nqueens") == 0) {
        unit = "node";
        ops = (double)bench_queens_nodes((int)n);
    } else if (strcmp(w, "fib") == 0) {
        unit = "join";
        ops = (double)(bench_expected("fib", n + 1) - 1); /* calls with n >= 2 */
    } else if (strncmp(w, "small-loops", 11) == 0 || strcmp(w, "broadcast") == 0) {
        unit = "call";
        ops = (double)n;
    }
    if (ops < 1)
        ops = 1;
    static const char *const names[] = {
        "jobs",       "steals",       "failed_steals", "sleeps",     "woken",
        "woke",       "dropped",      "run_at_spawn",  "yields",     "lock_waits",
        "wake_probes", "rmw_sleep",   "rmw_counts",    "rmw_queues", "rmw_deques"};
    _Static_assert(sizeof names / sizeof *names == sizeof *after / sizeof(unsigned long long),
                   "a name for every counter");
    const unsigned long long *a = (const unsigned long long *)(const void *)after;
    const unsigned long long *b = (const unsigned long long *)(const void *)before;
    fprintf(stderr, "counts %s %s %ld %d per=%s", peer, w, n, threads, unit);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        fprintf(stderr, " %s=%.4g", names[k], (double)(a[k] - b[k]) / ops);
    fprintf(stderr, "\n");
}

/* W8-W14: WORKLOAD[/VARIANT] N THREADS, in a pool of THREADS workers. */
static int run_dp(char *spec, long n, int threads)
{
    char *variant = strchr(spec, '/');
    if (variant != NULL)
        *variant++ = '\0';
    char peer[128];
    snprintf(peer, sizeof peer, "%s%s%s", peer_name, variant ? "/" : "", variant ? variant : "");
    spool_config_t config = {.num_threads = (unsigned)threads};
    spool_pool_t *pool;
    if (spool_pool_create(&config, &pool) != 0)
        return 2;
    bench_dp_spool_use(pool);
    bench_dp_out_t out;
    if (bench_dp_run(bench_dp_spool, spec, variant, bench_dp_warm_n(spec), threads, &out) != 0) {
        printf("%s %s %ld %d n/a n/a\n", peer, spec, n, threads);
        spool_pool_destroy(pool);
        return 0;
    }
    spool_worker_stats_t before, after;
    bool counting = counts_take(pool, &before);
    bench_dp_run(bench_dp_spool, spec, variant, n, threads, &out);
    if (counting && counts_take(pool, &after))
        counts_print(peer, spec, n, threads, &before, &after);
    char result[64];
    if (out.is_double)
        snprintf(result, sizeof result, "%a", out.dval);
    else
        snprintf(result, sizeof result, "%ld", out.ival);
    bench_print_peer_line(peer, spec, n, threads, out.seconds, result, out.cpu_s, out.csw, NULL);
    spool_pool_destroy(pool);
    if (!out.ok) {
        fprintf(stderr, "%s %s %ld: WRONG result %s\n", peer, spec, n, result);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKLOAD[/VARIANT] N THREADS\n", argv[0]);
        return 2;
    }
    set_peer_name(argv[0]);
    const char *w = argv[1];
    long n = atol(argv[2]);
    int threads = atoi(argv[3]);
    char spec[64];
    snprintf(spec, sizeof spec, "%s", w);
    char *slash = strchr(spec, '/');
    if (slash != NULL)
        *slash = '\0';
    if (bench_dp_warm_n(spec) != 0) {
        if (threads < 1 || n <= 0)
            return 2;
        snprintf(spec, sizeof spec, "%s", w);
        return run_dp(spec, n, threads);
    }
    if (threads < 1 || n < 0 || (strcmp(w, "wake") == 0 && n == 0))
        return 2;
    const bench_peer_t *spool = &bench_spool_peer;
    if (spool->start(threads) != 0)
        return 2;
    long warm = strcmp(w, "fib") == 0 ? 20 : strcmp(w, "nqueens") == 0 ? 8
                : strncmp(w, "spawn-", 6) == 0                         ? 1000
                                                                       : 10;
    bench_out_t out = {0};
    if (strncmp(w, "uts-", 4) == 0 || strcmp(w, "sort") == 0 || spool->run(w, warm, &out) != 0) {
        printf("%s %s %ld %d n/a n/a\n", peer_name, w, n, threads);
        return 0;
    }
    memset(&out, 0, sizeof out);
    spool_worker_stats_t before, after;
    bool counting = counts_take(bench_spool_pool(), &before);
    long csw0 = bench_context_switches();
    double cpu0 = bench_cpu_seconds();
    long long t0 = bench_now_ns();
    spool->run(w, n, &out);
    double seconds = (double)(bench_now_ns() - t0) * 1e-9, cpu = bench_cpu_seconds() - cpu0;
    long csw = bench_context_switches() - csw0;
    if (counting && counts_take(bench_spool_pool(), &after))
        counts_print(peer_name, w, n, threads, &before, &after);

    char extra[96] = "", result[32];
    if (strcmp(w, "wake") == 0)
        snprintf(extra, sizeof extra, " p50_us=%.2f p99_us=%.2f", out.p50_us, out.p99_us);
    snprintf(result, sizeof result, "%ld", out.result);
    bench_print_peer_line(peer_name, w, n, threads, seconds, result, cpu, csw, extra);
    spool->stop();
    if (out.result != bench_expected(w, n)) {
        fprintf(stderr, "%s %s %ld: WRONG result %ld, expected %ld\n", peer_name, w, n, out.result,
                bench_expected(w, n));
        return 1;
    }
    return 0;
}
