/*
 * spool-bench's workloads and the peers that run them.  Each peer (seq,
 * spool, OpenMP, oneTBB) implements the same workloads:
 *   fib N          a join at every level (W1)
 *   spawn-lifo N   N tiny spawns in one scope (W2); spawn-fifo likewise;
 *                  /spread: each adds to its thread's own counter
 *   nqueens N      a spawn per valid column, a scope per row (W3)
 *   sporadic N     N x (submit a tiny join from outside, wait, sleep 1 ms) (W4)
 *   wake N         N x (idle 5 ms, submit, latency to the job's start) (W5)
 *   uts-t1, uts-t3 the UTS trees T1 and T3, a spawn per child (W6)
 *   sort N         merge sort of N random 32-bit ints, parallel merges (W7)
 *   coarse N       coarse, uneven spawns from the parts of a loop into one
 *                  scope; coarse/mixed N: long and short spawns in a scope
 * and the data-parallel W8-W14 of dp.h (triad, mandelbrot, small-loops,
 * sum, nested, loop-in-join, broadcast), which run through bench_dp_run.
 */
#ifndef SPOOL_BENCH_KERNELS_H
#define SPOOL_BENCH_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_out {
    long result;           /* the checked result */
    long extra;            /* uts: leaves */
    double p50_us, p99_us; /* wake */
    double seconds;        /* > 0: the kernel timed itself (sort: the sort only) */
} bench_out_t;

/* A peer.  start() makes its pool of `threads`; run() returns 0, or -1 if
 * the peer has no such workload (printed as n/a). */
typedef struct bench_peer {
    const char *name;
    int (*start)(int threads);
    int (*run)(const char *workload, long n, bench_out_t *out);
    void (*stop)(void);
} bench_peer_t;

extern const bench_peer_t bench_seq_peer;
/* T copies of seq at once, one per thread (fib, nqueens, uts only): the
 * machine's own ceiling for a T-thread speed-up. */
extern const bench_peer_t bench_copies_peer;
extern const bench_peer_t bench_spool_peer;
/* The spool peer's pool between its start and stop (for its counters). */
struct spool_pool *bench_spool_pool(void);
extern const bench_peer_t bench_omp_peer; /* when built with OpenMP */
extern const bench_peer_t bench_tbb_peer; /* when built with oneTBB */

/* Shared helpers (kernels.c). */
/* The checked result of workload w of size n (uts: its node count). */
long bench_expected(const char *w, long n);
/* The nodes of an n-queens search (partial placements, the root included). */
long bench_queens_nodes(int n);
long long bench_now_ns(void);
void bench_sleep_ns(long ns);
void bench_fill_random(uint32_t *a, long n);
int bench_is_sorted(const uint32_t *a, long n);
void bench_percentiles(long long *latencies_ns, long n, double *p50_us, double *p99_us);
/* Sequential pieces the parallel sorts share. */
void bench_merge(const uint32_t *x, long nx, const uint32_t *y, long ny, uint32_t *out);
long bench_lower_bound(const uint32_t *a, long n, uint32_t v);
void bench_sort_small(uint32_t *a, long n);
/* The leaf of every peer's ping-pong merge sort: sorts a[0, n), leaving the
 * result in b if to_b, else in a. */
void bench_sort_leaf(uint32_t *a, uint32_t *b, long n, int to_b);
/* One merge of the parallel sorts: x[0, nx) and y[0, ny) into out. */
typedef struct bench_merge_task {
    const uint32_t *x, *y;
    long nx, ny;
    uint32_t *out;
} bench_merge_task_t;
/* Below the cutoff merges m here and returns 0; else splits the longer run
 * at its middle into two independent merges *lo and *hi and returns 1. */
int bench_merge_split(const bench_merge_task_t *m, bench_merge_task_t *lo, bench_merge_task_t *hi);
/* The merge that ends a sort of a[0, n) split at n / 2 whose halves sit in
 * b if to_b, else in a (bench_sort_leaf's ping-pong). */
bench_merge_task_t bench_sort_merge(uint32_t *a, uint32_t *b, long n, int to_b);
/* W7 for any peer: fills n random ints, times sort(a, b, n) (the result in
 * a), checks it, and reports into out. */
void bench_sort_run(long n, void (*sort)(uint32_t *a, uint32_t *b, long n), bench_out_t *out);
/* User + system CPU seconds of this process. */
double bench_cpu_seconds(void);
/* The process's context switches so far: voluntary (a sleep) and
 * involuntary (a yield or a preemption that gives the CPU away). */
long bench_context_switches(void);
/* Threads in this process (/proc/self/status); -1 if unreadable. */
int bench_os_threads(void);
/* The peer harness's output line (WORKLOADS.md): peer workload n threads
 * seconds result cpu_s=X maxrss_kb=Y os_threads=Z csw=W, then extra. */
void bench_print_peer_line(const char *peer, const char *w, long n, int threads, double seconds,
                           const char *result, double cpu_s, long csw, const char *extra);

/* coarse N: N iterations of a loop (one part each) whose iteration i
 * spawns bench_coarse_jobs(i) jobs (5 to 20) into one enclosing scope, job
 * j of it busy for bench_coarse_us(i, j) microseconds of its thread's CPU
 * time (200 to 2000).  coarse/mixed N: one scope spawning N jobs, every
 * tenth busy 4 ms and the others 0.1 ms.  The result: jobs run. */
int bench_coarse_jobs(long i);
long bench_coarse_us(long i, int j);
long bench_coarse_mixed_us(long j);
/* Burns us microseconds of the calling thread's CPU time. */
void bench_busy_us(long us);

enum {
    BENCH_SORT_CUTOFF = 4096,  /* below this, sort sequentially */
    BENCH_MERGE_CUTOFF = 8192, /* below this, merge sequentially */
    BENCH_WAKE_GAP_NS = 5000000,
    BENCH_WAKE_FIRST_GAP_NS = 50000000,
    BENCH_SPORADIC_SLEEP_NS = 1000000
};

#ifdef __cplusplus
}
#endif

#endif
