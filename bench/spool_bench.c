/*
 * spool-bench: spool against a sequential baseline and the peers compiled in
 * (OpenMP tasks, oneTBB), on the workloads of kernels.h and dp.h.
 *
 *   spool-bench [-n RUNS] [-t 1,2,...] [-w fib,spawn-lifo,...] [--quick]
 *               [--csv FILE] [--plot FILE.svg] [--stats]
 *
 * Every run is a fresh child process (so peak RSS is that run's own), with
 * the pool created and warmed up before the timed section; runs are
 * interleaved (run 1 of every configuration, then run 2, ...) so that a
 * drifting machine spreads over all of them.  The table gives medians, each
 * of spool's medians over the baseline's and over each peer's (< 1: spool is
 * faster), and peak RSS.  Every result is checked; a wrong one fails the run.
 * At T > 1 threads, T copies of the sequential run at once (fib, nqueens,
 * UTS) give the machine's ceiling: T x seq's time over theirs, the speed-up
 * that T threads sharing nothing reach here, to read spool's T1/T against.
 */
#define _GNU_SOURCE /* wait4 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dp.h"
#include "kernels.h"
#include "uts.h"

typedef struct workload {
    const char *name;
    long n, quick_n, warm_n;
} workload_t;

static const workload_t workloads[] = {
    {"fib", 30, 25, 20},
    {"fib", 32, 27, 20},
    {"spawn-lifo", 1000000, 100000, 1000},
    {"spawn-fifo", 1000000, 100000, 1000},
    /* W2's spawns with a copied argument, and into a task group (spool) */
    {"spawn-lifo/copy16", 1000000, 100000, 1000},
    {"spawn-lifo/copy64", 1000000, 100000, 1000},
    {"spawn-lifo/group", 1000000, 100000, 1000},
    /* W2 with a counter per thread: no line shared by the workload */
    {"spawn-lifo/spread", 1000000, 100000, 1000},
    {"spawn-fifo/spread", 1000000, 100000, 1000},
    {"nqueens", 12, 10, 8},
    {"sporadic", 2000, 200, 10},
    {"wake", 200, 40, 10},
    {"uts-t1", 0, 0, -1},
    {"uts-t3", 0, 0, -1},
    {"sort", 10000000, 1000000, 100000},
    {"coarse", 20, 4, 1},
    {"coarse/mixed", 100, 20, 2},
    /* W8-W14 (dp.h); NAME/VARIANT as in the peer harness */
    {"triad", 8388608, 262144, 65536},
    {"triad/static", 8388608, 262144, 65536},
    {"mandelbrot", 384, 64, 16},
    {"mandelbrot/dynamic", 384, 64, 16},
    {"small-loops", 200000, 2000, 100},
    {"small-loops/inside", 200000, 2000, 100},
    {"small-loops/caller", 200000, 2000, 100},
    /* W10 installed per call after the caller's own 30, 100, 400 us */
    {"small-loops/gap30", 10000, 200, 100},
    {"small-loops/gap100", 4000, 100, 100},
    {"small-loops/gap400", 1000, 50, 100},
    {"sum", 16777216, 262144, 65536},
    {"sum/fixed", 16777216, 262144, 65536},
    {"nested", 20000, 2000, 256},
    {"nested/isolated", 20000, 2000, 256},
    {"loop-in-join", 4194304, 262144, 65536},
    {"broadcast", 20000, 1000, 100},
};
enum { NUM_WORKLOADS = sizeof workloads / sizeof workloads[0], MAX_RUNS = 100, MAX_T = 16 };
enum { MAX_PEERS = 3, COPIES_SLOT = MAX_PEERS + 1 };

static const bench_peer_t *peers[MAX_PEERS];
static int num_peers;

typedef struct sample {
    double seconds, cpu_s, p50_us, p99_us;
    long result, extra, maxrss_kb;
    int status; /* 0 ok, 1 n/a, 2 failed */
} sample_t;

/* all_samples[workload][thread index][peer + 1 (0 = seq)][run]; the last
 * peer slot holds T copies of seq at once (bench_copies_peer). */
static sample_t all_samples[NUM_WORKLOADS][MAX_T][COPIES_SLOT + 1][MAX_RUNS];

/* A W8-W14 workload name: the base name (and *variant, or NULL); NULL if w
 * is not one. */
static const char *dp_split(const char *w, char *base, size_t size, const char **variant)
{
    snprintf(base, size, "%s", w);
    char *slash = strchr(base, '/');
    *variant = NULL;
    if (slash != NULL) {
        *slash = '\0';
        *variant = slash + 1;
    }
    return bench_dp_warm_n(base) != 0 ? base : NULL;
}

static bench_dp_kernel_fn dp_kernel_of(const bench_peer_t *p)
{
    if (p == &bench_spool_peer)
        return bench_dp_spool;
#ifdef SPOOL_BENCH_OPENMP
    if (p == &bench_omp_peer)
        return bench_dp_omp;
#endif
#ifdef SPOOL_BENCH_TBB
    if (p == &bench_tbb_peer)
        return bench_dp_tbb;
#endif
    return bench_dp_seq;
}

/* W8-W14 in the child: warm-up, then the timed run; result 1 if it checked
 * out.  Returns 0, or -1 for n/a. */
static int dp_measure(const bench_peer_t *p, const workload_t *w, long n, int threads, sample_t *c)
{
    char base[64];
    const char *variant;
    dp_split(w->name, base, sizeof base, &variant);
    bench_dp_out_t out;
    bench_dp_kernel_fn kernel = dp_kernel_of(p);
    if (bench_dp_run(kernel, base, variant, w->warm_n, threads, &out) != 0)
        return -1;
    bench_dp_run(kernel, base, variant, n, threads, &out);
    c->seconds = out.seconds;
    c->cpu_s = out.cpu_s;
    c->result = out.ok;
    return 0;
}

static int result_ok(const char *w, long n, const sample_t *s)
{
    char base[64];
    const char *variant;
    if (dp_split(w, base, sizeof base, &variant) != NULL)
        return s->result == 1;
    if (s->result != bench_expected(w, n))
        return 0;
    if (strcmp(w, "uts-t3") == 0 && s->extra != (long)uts_t3.expect_leaves)
        return 0;
    return 1;
}

/* One run in a child process. */
static sample_t measure(const bench_peer_t *p, const workload_t *w, long n, int threads)
{
    sample_t s = {0};
    int fd[2];
    if (pipe(fd) != 0) {
        s.status = 2;
        return s;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        sample_t c = {0};
        bench_out_t out = {0};
        char base[64];
        const char *variant;
        if (p->start(threads) != 0) {
            c.status = 2;
        } else if (dp_split(w->name, base, sizeof base, &variant) != NULL) {
            c.status = dp_measure(p, w, n, threads, &c) == 0 ? 0 : 1;
        } else if (p->run(w->warm_n >= 0 ? w->name : "nqueens", w->warm_n >= 0 ? w->warm_n : 8,
                          &out) != 0) {
            /* UTS has no small instance: its warm-up is nqueens 8. */
            c.status = 1;
        } else {
            memset(&out, 0, sizeof out);
            double cpu0 = bench_cpu_seconds();
            long long t0 = bench_now_ns();
            p->run(w->name, n, &out);
            double secs = (double)(bench_now_ns() - t0) * 1e-9;
            c.cpu_s = bench_cpu_seconds() - cpu0;
            c.seconds = out.seconds > 0 ? out.seconds : secs;
            c.result = out.result;
            c.extra = out.extra;
            c.p50_us = out.p50_us;
            c.p99_us = out.p99_us;
        }
        if (c.status != 2)
            p->stop();
        ssize_t wrote = write(fd[1], &c, sizeof c);
        _exit(wrote == (ssize_t)sizeof c ? 0 : 3);
    }
    close(fd[1]);
    ssize_t got = pid > 0 ? read(fd[0], &s, sizeof s) : -1;
    close(fd[0]);
    int wstatus = 0;
    struct rusage ru;
    if (pid <= 0 || wait4(pid, &wstatus, 0, &ru) != pid || got != (ssize_t)sizeof s ||
        !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        s.status = 2;
        return s;
    }
    s.maxrss_kb = ru.ru_maxrss;
    return s;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median of one field over the ok samples; -1 if none. */
static double median_of(const sample_t *s, int runs, int field)
{
    double v[MAX_RUNS];
    int k = 0;
    for (int r = 0; r < runs; r++) {
        if (s[r].status != 0)
            continue;
        v[k++] = field == 0   ? s[r].seconds
                 : field == 1 ? s[r].cpu_s
                 : field == 2 ? (double)s[r].maxrss_kb / 1024.0
                 : field == 3 ? s[r].p50_us
                              : s[r].p99_us;
    }
    return k > 0 ? median(v, k) : -1;
}

static int parse_list(const char *arg, int *out, int max)
{
    int k = 0;
    for (const char *p = arg; *p != '\0' && k < max;) {
        out[k++] = atoi(p);
        p = strchr(p, ',');
        if (p == NULL)
            break;
        p++;
    }
    return k;
}

/* Speed-up against threads, one panel per workload, one line per peer: each
 * peer's 1-thread median over its T-thread median.  Written as a gnuplot
 * script with the data inline; skipped (with a word) without gnuplot. */
static void write_plot(const char *svg, const int *chosen, int num_chosen, const int *threads,
                       int num_threads, int runs, int quick)
{
    sample_t (*samples)[MAX_T][COPIES_SLOT + 1][MAX_RUNS] = all_samples;
    char script[1024];
    snprintf(script, sizeof script, "%s.gp", svg);
    FILE *f = fopen(script, "w");
    if (f == NULL)
        return;
    int cols = num_chosen < 3 ? num_chosen : 3, rows = (num_chosen + cols - 1) / cols;
    fprintf(f, "set terminal svg size %d,%d noenhanced\nset output '%s'\n", 420 * cols, 320 * rows, svg);
    fprintf(f, "set multiplot layout %d,%d\nset key left top\nset xlabel 'threads'\n", rows, cols);
    fprintf(f, "set ylabel 'speed-up over 1 thread'\nset grid\n");
    for (int c = 0; c < num_chosen; c++) {
        const workload_t *w = &workloads[chosen[c]];
        long n = quick ? w->quick_n : w->n;
        fprintf(f, n > 0 ? "set title '%s %ld'\n" : "set title '%s'\n", w->name, n);
        fprintf(f, "plot");
        for (int p = 0; p < num_peers; p++)
            fprintf(f, "%s '-' using 1:2 with linespoints title '%s'", p ? "," : "", peers[p]->name);
        fprintf(f, "\n");
        for (int p = 0; p < num_peers; p++) {
            double one = -1;
            for (int t = 0; t < num_threads; t++)
                if (threads[t] == 1)
                    one = median_of(samples[chosen[c]][t][p + 1], runs, 0);
            for (int t = 0; t < num_threads && one > 0; t++) {
                double m = median_of(samples[chosen[c]][t][p + 1], runs, 0);
                if (m > 0)
                    fprintf(f, "%d %.4f\n", threads[t], one / m);
            }
            fprintf(f, "e\n");
        }
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "spool-bench: gnuplot is not installed: no plot (script in %s)\n", script);
        return;
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s'", script);
    if (system(cmd) != 0)
        fprintf(stderr, "spool-bench: gnuplot failed on %s\n", script);
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [-n RUNS] [-t 1,2,...] [-w workload,...] [--quick] [--csv FILE] "
            "[--plot FILE.svg] [--stats]\n"
            "--stats: each spool run prints its workers' counters (spool built with "
            "-DSPOOL_STATS=ON)\nworkloads:",
            argv0);
    for (int i = 0; i < NUM_WORKLOADS; i++)
        if (i == 0 || strcmp(workloads[i].name, workloads[i - 1].name) != 0)
            fprintf(stderr, " %s", workloads[i].name);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    int runs = 5, threads[MAX_T], num_threads = 0, quick = 0, stats = 0;
    const char *only = NULL, *csv_path = NULL, *plot_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            num_threads = parse_list(argv[++i], threads, MAX_T);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc)
            plot_path = argv[++i];
        else if (strcmp(argv[i], "--stats") == 0)
            stats = 1;
        else {
            usage(argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS) {
        usage(argv[0]);
        return 2;
    }
    if (num_threads == 0) {
        threads[num_threads++] = 1;
        threads[num_threads++] = 2;
    }
    peers[num_peers++] = &bench_spool_peer;
#ifdef SPOOL_BENCH_OPENMP
    peers[num_peers++] = &bench_omp_peer;
#endif
#ifdef SPOOL_BENCH_TBB
    peers[num_peers++] = &bench_tbb_peer;
#endif

    /* Which workloads; sizes. */
    int chosen[NUM_WORKLOADS], num_chosen = 0;
    for (int i = 0; i < NUM_WORKLOADS; i++) {
        if (only != NULL) {
            char list[256];
            snprintf(list, sizeof list, ",%s,", only);
            char key[64];
            snprintf(key, sizeof key, ",%s,", workloads[i].name);
            if (strstr(list, key) == NULL)
                continue;
        }
        chosen[num_chosen++] = i;
    }
    if (num_chosen == 0) {
        usage(argv[0]);
        return 2;
    }

    sample_t (*samples)[MAX_T][COPIES_SLOT + 1][MAX_RUNS] = all_samples;
    FILE *csv = csv_path != NULL ? fopen(csv_path, "w") : NULL;
    if (csv_path != NULL && csv == NULL) {
        fprintf(stderr, "spool-bench: cannot write %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    if (csv != NULL)
        fprintf(csv, "workload,n,threads,peer,run,seconds,cpu_s,maxrss_kb,result,extra,p50_us,p99_us,status\n");
    int failures = 0;
    fprintf(stderr, "spool-bench: %d runs of %d workloads on threads", runs, num_chosen);
    for (int t = 0; t < num_threads; t++)
        fprintf(stderr, " %d", threads[t]);
    fprintf(stderr, "; peers: seq");
    for (int p = 0; p < num_peers; p++)
        fprintf(stderr, " %s", peers[p]->name);
    fprintf(stderr, "\n");
    for (int r = 0; r < runs; r++) {
        fprintf(stderr, "  run %d/%d\n", r + 1, runs);
        for (int c = 0; c < num_chosen; c++) {
            const workload_t *w = &workloads[chosen[c]];
            long n = quick ? w->quick_n : w->n;
            for (int t = 0; t < num_threads; t++) {
                for (int p = 0; p <= COPIES_SLOT; p++) {
                    if (p == 0 && t > 0)
                        continue; /* the baseline runs once, on one thread */
                    if (p > num_peers && (p != COPIES_SLOT || threads[t] == 1))
                        continue;
                    const bench_peer_t *peer = p == 0             ? &bench_seq_peer
                                               : p == COPIES_SLOT ? &bench_copies_peer
                                                                  : peers[p - 1];
                    if (stats) {
                        char what[96];
                        snprintf(what, sizeof what, "%s %ld T=%d run %d", w->name, n, threads[t], r + 1);
                        setenv("SPOOL_BENCH_STATS", what, 1);
                    }
                    sample_t s = measure(peer, w, n, threads[t]);
                    if (s.status == 0 && !result_ok(w->name, n, &s)) {
                        fprintf(stderr, "spool-bench: %s %s %ld on %d threads: WRONG result %ld (%ld)\n",
                                peer->name, w->name, n, threads[t], s.result, s.extra);
                        s.status = 2;
                    }
                    if (s.status == 2)
                        failures++;
                    samples[chosen[c]][t][p][r] = s;
                    if (csv != NULL)
                        fprintf(csv, "%s,%ld,%d,%s,%d,%.6f,%.6f,%ld,%ld,%ld,%.2f,%.2f,%s\n", w->name, n,
                                p == 0 ? 1 : threads[t], peer->name, r + 1, s.seconds, s.cpu_s,
                                s.maxrss_kb, s.result, s.extra, s.p50_us, s.p99_us,
                                s.status == 0 ? "ok" : s.status == 1 ? "n/a" : "failed");
                }
            }
        }
    }
    if (csv != NULL)
        fclose(csv);

    /* The table. */
    printf("\n| workload | T | seq s |");
    for (int p = 0; p < num_peers; p++)
        printf(" %s s |", peers[p]->name);
    printf(" spool/seq |");
    for (int p = 1; p < num_peers; p++)
        printf(" spool/%s |", peers[p]->name);
    printf(" spool T1/T | ceiling | peak MiB");
    for (int p = 0; p < num_peers; p++)
        printf("%s%s", p ? " / " : " ", peers[p]->name);
    printf(" | notes |\n|---|---:|---:|");
    for (int p = 0; p < num_peers; p++)
        printf("---:|");
    for (int p = 0; p < num_peers; p++)
        printf("---:|");
    printf("---:|---:|---:|---|\n");
    for (int c = 0; c < num_chosen; c++) {
        const workload_t *w = &workloads[chosen[c]];
        long n = quick ? w->quick_n : w->n;
        double seq = median_of(samples[chosen[c]][0][0], runs, 0);
        double spool_t1 = -1;
        for (int t = 0; t < num_threads; t++) {
            double med[4];
            for (int p = 0; p < num_peers; p++)
                med[p] = median_of(samples[chosen[c]][t][p + 1], runs, 0);
            if (threads[t] == 1)
                spool_t1 = med[0];
            char label[64];
            snprintf(label, sizeof label, n > 0 ? "%s %ld" : "%s", w->name, n);
            printf("| %s | %d | ", label, threads[t]);
            if (seq > 0)
                printf("%.6f |", seq);
            else
                printf("n/a |");
            for (int p = 0; p < num_peers; p++)
                med[p] > 0 ? printf(" %.6f |", med[p]) : printf(" n/a |");
            med[0] > 0 && seq > 0 ? printf(" %.2f |", med[0] / seq) : printf(" - |");
            for (int p = 1; p < num_peers; p++)
                med[0] > 0 && med[p] > 0 ? printf(" %.2f |", med[0] / med[p]) : printf(" - |");
            spool_t1 > 0 && med[0] > 0 ? printf(" %.2f |", spool_t1 / med[0]) : printf(" - |");
            double copies = median_of(samples[chosen[c]][t][COPIES_SLOT], runs, 0);
            copies > 0 && seq > 0 ? printf(" %.2f |", threads[t] * seq / copies) : printf(" - |");
            for (int p = 0; p < num_peers; p++) {
                double rss = median_of(samples[chosen[c]][t][p + 1], runs, 2);
                rss > 0 ? printf("%s%.1f", p ? " / " : " ", rss) : printf("%s-", p ? " / " : " ");
            }
            printf(" |");
            const sample_t *sp = samples[chosen[c]][t][1];
            if (strcmp(w->name, "sporadic") == 0 || strncmp(w->name, "small-loops/gap", 15) == 0) {
                double wall = median_of(sp, runs, 0), cpu = median_of(sp, runs, 1);
                printf(" spool cpu/wall %.3f", wall > 0 ? cpu / wall : 0);
            } else if (strcmp(w->name, "wake") == 0) {
                printf(" spool p50 %.1f us, p99 %.1f us", median_of(sp, runs, 3), median_of(sp, runs, 4));
            } else if (strncmp(w->name, "uts-", 4) == 0 && sp[0].status == 0) {
                printf(" %ld nodes, %ld leaves", sp[0].result, sp[0].extra);
            }
            printf(" |\n");
        }
    }
    if (plot_path != NULL)
        write_plot(plot_path, chosen, num_chosen, threads, num_threads, runs, quick);
    if (failures > 0)
        fprintf(stderr, "spool-bench: %d runs failed or gave a wrong result\n", failures);
    return failures > 0;
}
