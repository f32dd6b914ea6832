/*
 * spool-omp-peer: spool-bench's OpenMP kernels (omp_kernels.c, dp.c's
 * driver) as a program of their own, built with gcc -fopenmp and linked
 * with libgomp like any OpenMP program, so that one build runs on every
 * runtime of gcc's ABI: libgomp, LLVM's libomp (LD_PRELOAD), libspool-omp
 * (LD_PRELOAD, or spool-omp).  bench/omp_runtimes.sh runs it on each.
 *
 *   spool-omp-peer WORKLOAD[/VARIANT] N THREADS
 *
 * prints the peer harness's line (WORKLOADS.md; spool_peer.c's), its peer
 * name the program's own file name, so that a link named after a runtime
 * names its rows.  T threads as the harness defines them: every region
 * num_threads(T), W4 and W5 num_threads(T + 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "kernels.h"

static const char *peer_name(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    return base != NULL ? base + 1 : argv0;
}

/* W8-W14: WORKLOAD[/VARIANT] N THREADS. */
static int run_dp(const char *name, char *spec, long n, int threads)
{
    char *variant = strchr(spec, '/');
    if (variant != NULL)
        *variant++ = '\0';
    char peer[128];
    snprintf(peer, sizeof peer, "%s%s%s", name, variant ? "/" : "", variant ? variant : "");
    bench_omp_peer.start(threads);
    bench_dp_out_t out;
    if (bench_dp_run(bench_dp_omp, spec, variant, bench_dp_warm_n(spec), threads, &out) != 0) {
        printf("%s %s %ld %d n/a n/a\n", peer, spec, n, threads);
        return 0;
    }
    bench_dp_run(bench_dp_omp, spec, variant, n, threads, &out);
    char result[64];
    if (out.is_double)
        snprintf(result, sizeof result, "%a", out.dval);
    else
        snprintf(result, sizeof result, "%ld", out.ival);
    bench_print_peer_line(peer, spec, n, threads, out.seconds, result, out.cpu_s, out.csw, NULL);
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
    const char *name = peer_name(argv[0]), *w = argv[1];
    long n = atol(argv[2]);
    int threads = atoi(argv[3]);
    char spec[64];
    snprintf(spec, sizeof spec, "%s", w);
    char *slash = strchr(spec, '/');
    if (slash != NULL)
        *slash = '\0';
    if (threads < 1 || n <= 0)
        return 2;
    if (bench_dp_warm_n(spec) != 0) {
        snprintf(spec, sizeof spec, "%s", w);
        return run_dp(name, spec, n, threads);
    }
    const bench_peer_t *omp = &bench_omp_peer;
    omp->start(threads);
    long warm = strcmp(w, "fib") == 0 ? 20 : strcmp(w, "nqueens") == 0 ? 8
                : strncmp(w, "spawn-", 6) == 0                         ? 1000
                                                                       : 10;
    bench_out_t out = {0};
    if (strncmp(w, "uts-", 4) == 0 || strcmp(w, "sort") == 0 || omp->run(w, warm, &out) != 0) {
        printf("%s %s %ld %d n/a n/a\n", name, w, n, threads);
        return 0;
    }
    memset(&out, 0, sizeof out);
    long csw0 = bench_context_switches();
    double cpu0 = bench_cpu_seconds();
    long long t0 = bench_now_ns();
    omp->run(w, n, &out);
    double seconds = (double)(bench_now_ns() - t0) * 1e-9, cpu = bench_cpu_seconds() - cpu0;
    long csw = bench_context_switches() - csw0;
    char extra[96] = "", result[32];
    if (strcmp(w, "wake") == 0)
        snprintf(extra, sizeof extra, " p50_us=%.2f p99_us=%.2f", out.p50_us, out.p99_us);
    snprintf(result, sizeof result, "%ld", out.result);
    bench_print_peer_line(name, w, n, threads, seconds, result, cpu, csw, extra);
    omp->stop();
    if (out.result != bench_expected(w, n)) {
        fprintf(stderr, "%s %s %ld: WRONG result %ld, expected %ld\n", name, w, n, out.result,
                bench_expected(w, n));
        return 1;
    }
    return 0;
}
