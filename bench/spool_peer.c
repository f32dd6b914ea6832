/*
 * spool-peer: spool on the team's peer comparison, with its command line
 * and its one output line:
 *
 *   spool-peer WORKLOAD N THREADS
 *   spool workload n threads seconds result cpu_s=X maxrss_kb=Y os_threads=Z [p50_us=A p99_us=B]
 *
 * WORKLOAD is fib, spawn-lifo, spawn-fifo, nqueens, sporadic or wake (the
 * kernels are spool-bench's, kernels.h).  The pool is created and warmed up
 * with a small instance (fib 20, spawn 1000, nqueens 8, others 10) first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kernels.h"

static int thread_count(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "Threads:", 8) == 0)
            n = atoi(line + 8);
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKLOAD N THREADS\n", argv[0]);
        return 2;
    }
    const char *w = argv[1];
    long n = atol(argv[2]);
    int threads = atoi(argv[3]);
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
        printf("spool %s %ld %d n/a n/a\n", w, n, threads);
        return 0;
    }
    memset(&out, 0, sizeof out);
    double cpu0 = bench_cpu_seconds();
    long long t0 = bench_now_ns();
    spool->run(w, n, &out);
    double seconds = (double)(bench_now_ns() - t0) * 1e-9, cpu = bench_cpu_seconds() - cpu0;

    char extra[96] = "";
    if (strcmp(w, "wake") == 0)
        snprintf(extra, sizeof extra, " p50_us=%.2f p99_us=%.2f", out.p50_us, out.p99_us);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("spool %s %ld %d %.6f %ld cpu_s=%.6f maxrss_kb=%ld os_threads=%d%s\n", w, n, threads,
           seconds, out.result, cpu, ru.ru_maxrss, thread_count(), extra);
    fflush(stdout);
    spool->stop();
    if (out.result != bench_expected(w, n)) {
        fprintf(stderr, "spool %s %ld: WRONG result %ld, expected %ld\n", w, n, out.result,
                bench_expected(w, n));
        return 1;
    }
    return 0;
}
