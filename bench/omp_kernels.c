/* spool-bench's workloads on OpenMP tasks (built with -fopenmp): one
 * `parallel num_threads(T)` region whose `single` thread runs the root, the
 * other threads taking tasks.  W4 and W5 submit a job as one `parallel
 * num_threads(T + 1)` region (the main thread is thread 0; the runtime
 * keeps the T others between regions, idle as its wait policy says), as
 * the peer harness defines them.  W2 spawn-fifo has no OpenMP form (n/a). */
#include <omp.h>
#include <stdbool.h>

#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "kernels.h"
#include "uts.h"

static int omp_threads;

static long fib(long n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(b)
    b = fib(n - 2);
    a = fib(n - 1);
#pragma omp taskwait
    return a + b;
}

static long queens(int n, int row, unsigned cols, unsigned d1, unsigned d2)
{
    if (row == n)
        return 1;
    long cnt[32];
    int k = 0;
    unsigned avail = ~(cols | d1 | d2) & ((1u << n) - 1);
    while (avail != 0) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        int slot = k++;
#pragma omp task shared(cnt) firstprivate(slot, bit)
        cnt[slot] = queens(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
    }
#pragma omp taskwait
    long sum = 0;
    for (int i = 0; i < k; i++)
        sum += cnt[i];
    return sum;
}

enum { MAX_WORKERS = 1024 };
typedef struct uts_counts {
    _Alignas(64) long nodes, leaves;
} uts_counts_t;
static uts_counts_t counts[MAX_WORKERS];

static void uts_visit(const uts_tree_t *t, const uts_node_t *node)
{
    uts_counts_t *c = &counts[omp_get_thread_num()];
    int k = uts_num_children(t, node);
    c->nodes++;
    if (k == 0) {
        c->leaves++;
        return;
    }
    uts_node_t local[8];
    uts_node_t *children = k <= 8 ? local : malloc((size_t)k * sizeof *children);
    for (int i = 0; i < k; i++) {
        uts_child(node, i, &children[i]);
#pragma omp task firstprivate(i)
        uts_visit(t, &children[i]);
    }
#pragma omp taskwait
    if (children != local)
        free(children);
}

static void merge_par(const bench_merge_task_t *m)
{
    bench_merge_task_t lo, hi;
    if (!bench_merge_split(m, &lo, &hi))
        return;
#pragma omp task
    merge_par(&lo);
    merge_par(&hi);
#pragma omp taskwait
}

static void sort_par(uint32_t *a, uint32_t *b, long n, int to_b)
{
    if (n <= BENCH_SORT_CUTOFF) {
        bench_sort_leaf(a, b, n, to_b);
        return;
    }
    long h = n / 2;
#pragma omp task
    sort_par(a, b, h, !to_b);
    sort_par(a + h, b + h, n - h, !to_b);
#pragma omp taskwait
    bench_merge_task_t m = bench_sort_merge(a, b, n, to_b);
    merge_par(&m);
}

static void sort_in_region(uint32_t *a, uint32_t *b, long n)
{
#pragma omp parallel num_threads(omp_threads)
#pragma omp single
    sort_par(a, b, n, 0);
}

static long tick_count;
static void tick(void)
{
#pragma omp atomic
    tick_count++;
}

/* spawn-lifo/spread: the thread's own counter (the uts counts' nodes). */
static void tick_spread(void)
{
    counts[omp_get_thread_num()].nodes++;
}

static int omp_start(int threads)
{
    omp_threads = threads;
    return 0;
}

static void omp_stop(void)
{
}

/* coarse: the loop's iterations as tasks, each spawning its jobs as tasks,
 * in one taskgroup (what an OpenMP port of the program does). */
static void coarse_omp(long n, int mixed, bench_out_t *out)
{
    long done = 0;
#pragma omp parallel num_threads(omp_threads)
#pragma omp single
#pragma omp taskgroup
    {
        if (mixed) {
            for (long j = 0; j < n; j++) {
#pragma omp task firstprivate(j) shared(done)
                {
                    bench_busy_us(bench_coarse_mixed_us(j));
#pragma omp atomic
                    done++;
                }
            }
        } else {
            for (long i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(done)
                for (int j = 0; j < bench_coarse_jobs(i); j++) {
#pragma omp task firstprivate(i, j) shared(done)
                    {
                        bench_busy_us(bench_coarse_us(i, j));
#pragma omp atomic
                        done++;
                    }
                }
            }
        }
    }
    out->result = done;
}

/* W4's job: the join of two trivial halves, as a task and an inline call. */
static long sporadic_half(long v)
{
    return v;
}

static long sporadic_job(void)
{
    long a = 0, b = 0;
#pragma omp parallel num_threads(omp_threads + 1)
#pragma omp single
    {
#pragma omp task shared(b)
        b = sporadic_half(2);
        a = sporadic_half(1);
#pragma omp taskwait
    }
    return a + b == 3;
}

/* W4 without tasks (sporadic/sections): the two halves as the sections of
 * one region, so that a runtime without tasks is measured idle between
 * regions too. */
static long sporadic_sections(void)
{
    long a = 0, b = 0;
#pragma omp parallel sections num_threads(omp_threads + 1)
    {
#pragma omp section
        a = sporadic_half(1);
#pragma omp section
        b = sporadic_half(2);
    }
    return a + b == 3;
}

/* W5: the latency from the submit to the job's first action on thread 1
 * (a pool thread, not main). */
static void wake_omp(long n, bench_out_t *out)
{
    long long *lat = malloc((size_t)n * sizeof *lat);
    if (lat == NULL)
        return;
    for (long i = 0; i < n; i++) {
        bench_sleep_ns(i == 0 ? BENCH_WAKE_FIRST_GAP_NS : BENCH_WAKE_GAP_NS);
        long long t0 = bench_now_ns(), started = t0;
#pragma omp parallel num_threads(omp_threads + 1)
        if (omp_get_thread_num() == (omp_get_num_threads() > 1 ? 1 : 0))
            started = bench_now_ns();
        lat[i] = started - t0;
    }
    bench_percentiles(lat, n, &out->p50_us, &out->p99_us);
    out->result = n;
    free(lat);
}

static int omp_run(const char *w, long n, bench_out_t *out)
{
    if (strcmp(w, "sporadic") == 0 || strcmp(w, "sporadic/sections") == 0) {
        bool sections = strcmp(w, "sporadic/sections") == 0;
        long done = 0;
        for (long i = 0; i < n; i++) {
            done += sections ? sporadic_sections() : sporadic_job();
            bench_sleep_ns(BENCH_SPORADIC_SLEEP_NS);
        }
        out->result = done;
        return 0;
    }
    if (strcmp(w, "wake") == 0) {
        wake_omp(n, out);
        return 0;
    }
    if (strncmp(w, "coarse", 6) == 0) {
        coarse_omp(n, strcmp(w, "coarse/mixed") == 0, out);
        return 0;
    }
    bool spread = strcmp(w, "spawn-lifo/spread") == 0;
    if (strcmp(w, "spawn-fifo") == 0 || (strchr(w, '/') != NULL && !spread))
        return -1;
    if (strcmp(w, "sort") == 0) {
        bench_sort_run(n, sort_in_region, out);
        return 0;
    }
    const uts_tree_t *t = strcmp(w, "uts-t1") == 0 ? &uts_t1 : &uts_t3;
    memset(counts, 0, sizeof counts);
    tick_count = 0;
#pragma omp parallel num_threads(omp_threads)
#pragma omp single
    {
        if (strcmp(w, "fib") == 0) {
            out->result = fib(n);
        } else if (strcmp(w, "spawn-lifo") == 0) {
            for (long i = 0; i < n; i++) {
#pragma omp task
                tick();
            }
#pragma omp taskwait
            out->result = tick_count;
        } else if (spread) {
            for (long i = 0; i < n; i++) {
#pragma omp task
                tick_spread();
            }
#pragma omp taskwait
            out->result = 0;
            for (int i = 0; i < MAX_WORKERS; i++)
                out->result += counts[i].nodes;
        } else if (strcmp(w, "nqueens") == 0) {
            out->result = queens((int)n, 0, 0, 0, 0);
        } else if (strncmp(w, "uts-", 4) == 0) {
            uts_node_t root;
            uts_root(t, &root);
            uts_visit(t, &root);
        }
    }
    if (strncmp(w, "uts-", 4) == 0) {
        out->result = out->extra = 0;
        for (int i = 0; i < MAX_WORKERS; i++) {
            out->result += counts[i].nodes;
            out->extra += counts[i].leaves;
        }
    }
    return 0;
}

const bench_peer_t bench_omp_peer = {"openmp", omp_start, omp_run, omp_stop};

/* ---- W8-W14 (dp.h): the best OpenMP form of each ----------------------------
 * triad and sum: static schedule; mandelbrot: dynamic, 1 (the static split
 * leaves one thread 94% of the work; /guided: guided); small-loops: a
 * parallel for per call from outside, or an orphaned `for` in one region
 * (inside); nested: the
 * outer loop parallel with schedule(dynamic, 64) (the loop is triangular),
 * the inner one sequential (a nested region would run on a team of 1
 * anyway); loop-in-join: tasks for the halves, taskloop
 * leaves; broadcast: one region per broadcast. */

static void omp_small_inside(double *a)
{
#pragma omp for schedule(static)
    for (long i = 0; i < BENCH_DP_SMALL_LEN; i += BENCH_DP_BLOCK)
        bench_dp_small_block(a + i);
}

static void omp_lij(double *x, long lo, long hi, int depth)
{
    if (depth == 3) {
#pragma omp taskloop
        for (long i = lo; i < hi; i++)
            x[i] = bench_dp_lij_f(x[i]);
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma omp task
    omp_lij(x, mid, hi, depth + 1);
    omp_lij(x, lo, mid, depth + 1);
#pragma omp taskwait
}

int bench_dp_omp(const char *w, bench_dp_t *d)
{
    const char *v = d->variant;
    long n = d->n;
    int t = omp_threads;
    /* triad is static and mandelbrot dynamic already: their variants are
     * the same loops. */
    long gap = strcmp(w, "small-loops") == 0 ? bench_dp_gap_us(v) : -1;
    if (v != NULL && gap < 0 && !(strcmp(w, "small-loops") == 0 && strcmp(v, "inside") == 0) &&
        !(strcmp(w, "triad") == 0 && strcmp(v, "static") == 0) &&
        !(strcmp(w, "mandelbrot") == 0 &&
          (strcmp(v, "dynamic") == 0 || strcmp(v, "guided") == 0)))
        return -1;
    if (strcmp(w, "triad") == 0) {
        for (int p = 0; p < BENCH_DP_TRIAD_PASSES; p++) {
#pragma omp parallel for num_threads(t) schedule(static)
            for (long i = 0; i < n; i += BENCH_DP_BLOCK)
                bench_dp_triad_range(d, (size_t)i,
                                     (size_t)(i + BENCH_DP_BLOCK < n ? i + BENCH_DP_BLOCK : n));
        }
    } else if (strcmp(w, "mandelbrot") == 0 && v != NULL && strcmp(v, "guided") == 0) {
#pragma omp parallel for num_threads(t) schedule(guided)
        for (long py = 0; py < n; py++)
            d->rows[py] = bench_dp_mandel_row(py, n);
    } else if (strcmp(w, "mandelbrot") == 0) {
#pragma omp parallel for num_threads(t) schedule(dynamic, 1)
        for (long py = 0; py < n; py++)
            d->rows[py] = bench_dp_mandel_row(py, n);
    } else if (strcmp(w, "small-loops") == 0 && (v == NULL || gap >= 0)) {
        for (long k = 0; k < n; k++) {
            if (gap > 0)
                bench_dp_busy_ns((long long)gap * 1000);
#pragma omp parallel for num_threads(t) schedule(static)
            for (long i = 0; i < BENCH_DP_SMALL_LEN; i += BENCH_DP_BLOCK)
                bench_dp_small_block(d->a + i);
        }
    } else if (strcmp(w, "small-loops") == 0) {
#pragma omp parallel num_threads(t)
        for (long k = 0; k < n; k++)
            omp_small_inside(d->a);
    } else if (strcmp(w, "sum") == 0) {
        for (int p = 0; p < BENCH_DP_SUM_PASSES; p++) {
            double s = 0.0;
#pragma omp parallel for num_threads(t) schedule(static) reduction(+ : s)
            for (long i = 0; i < n; i++)
                s += d->a[i];
            d->sum = s;
        }
    } else if (strcmp(w, "nested") == 0) {
#pragma omp parallel for num_threads(t) schedule(dynamic, 64)
        for (long i = 0; i < n; i++)
            d->a[i] = bench_dp_terms((uint64_t)i, 0.0, 0, (uint64_t)i + 1);
    } else if (strcmp(w, "loop-in-join") == 0) {
#pragma omp parallel num_threads(t)
#pragma omp single
        omp_lij(d->a, 0, n, 0);
    } else {
        for (long k = 0; k < n; k++) {
#pragma omp parallel num_threads(t)
            d->counts[omp_get_thread_num()].n++;
        }
    }
    return 0;
}
