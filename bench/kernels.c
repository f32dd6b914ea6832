/* Helpers shared by every peer of spool-bench, and the sequential peer. */
#include "kernels.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "uts.h"

long bench_expected(const char *w, long n)
{
    static const long queens[] = {1,  1,   0,   0,    2,     10,    4,      40,
                                  92, 352, 724, 2680, 14200, 73712, 365596, 2279184};
    if (strcmp(w, "fib") == 0) {
        long a = 0, b = 1;
        for (long i = 0; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return a;
    }
    if (strcmp(w, "nqueens") == 0)
        return n >= 0 && n <= 15 ? queens[n] : -1;
    if (strcmp(w, "uts-t1") == 0)
        return (long)uts_t1.expect_nodes;
    if (strcmp(w, "uts-t3") == 0)
        return (long)uts_t3.expect_nodes;
    if (strcmp(w, "sort") == 0)
        return 1;
    if (strcmp(w, "coarse") == 0) {
        long jobs = 0;
        for (long i = 0; i < n; i++)
            jobs += bench_coarse_jobs(i);
        return jobs;
    }
    return n; /* spawn: counter; sporadic: jobs done; wake: samples */
}

int bench_coarse_jobs(long i)
{
    return 5 + (int)((i * 7) % 16);
}

long bench_coarse_us(long i, int j)
{
    return 200 + ((i * 31 + j * 17) % 19) * 100;
}

long bench_coarse_mixed_us(long j)
{
    return j % 10 == 0 ? 4000 : 100;
}

void bench_busy_us(long us)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    long long end = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec + us * 1000LL;
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    while ((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec < end);
}

long long bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void bench_sleep_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

void bench_fill_random(uint32_t *a, long n)
{
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = (uint32_t)(x >> 16);
    }
}

int bench_is_sorted(const uint32_t *a, long n)
{
    for (long i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

void bench_percentiles(long long *lat, long n, double *p50_us, double *p99_us)
{
    qsort(lat, (size_t)n, sizeof *lat, compare_ll);
    long r99 = (99 * n + 99) / 100; /* nearest rank, ceil(0.99 n) */
    *p50_us = (n % 2 ? (double)lat[n / 2] : 0.5 * (double)(lat[n / 2 - 1] + lat[n / 2])) / 1e3;
    *p99_us = (double)lat[r99 - 1] / 1e3;
}

void bench_merge(const uint32_t *x, long nx, const uint32_t *y, long ny, uint32_t *out)
{
    long i = 0, j = 0, k = 0;
    while (i < nx && j < ny)
        out[k++] = y[j] < x[i] ? y[j++] : x[i++];
    memcpy(out + k, x + i, (size_t)(nx - i) * sizeof *x);
    memcpy(out + k + (nx - i), y + j, (size_t)(ny - j) * sizeof *y);
}

long bench_lower_bound(const uint32_t *a, long n, uint32_t v)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int bench_merge_split(const bench_merge_task_t *m, bench_merge_task_t *lo, bench_merge_task_t *hi)
{
    if (m->nx + m->ny <= BENCH_MERGE_CUTOFF) {
        bench_merge(m->x, m->nx, m->y, m->ny, m->out);
        return 0;
    }
    /* Split the longer run. */
    int swap = m->nx < m->ny;
    const uint32_t *x = swap ? m->y : m->x, *y = swap ? m->x : m->y;
    long nx = swap ? m->ny : m->nx, ny = swap ? m->nx : m->ny;
    long mx = nx / 2, my = bench_lower_bound(y, ny, x[mx]);
    *lo = (bench_merge_task_t){x, y, mx, my, m->out};
    *hi = (bench_merge_task_t){x + mx, y + my, nx - mx, ny - my, m->out + mx + my};
    return 1;
}

bench_merge_task_t bench_sort_merge(uint32_t *a, uint32_t *b, long n, int to_b)
{
    long h = n / 2;
    return to_b ? (bench_merge_task_t){a, a + h, h, n - h, b}
                : (bench_merge_task_t){b, b + h, h, n - h, a};
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void bench_sort_small(uint32_t *a, long n)
{
    qsort(a, (size_t)n, sizeof *a, compare_u32);
}

void bench_sort_leaf(uint32_t *a, uint32_t *b, long n, int to_b)
{
    bench_sort_small(a, n);
    if (to_b)
        memcpy(b, a, (size_t)n * sizeof *a);
}

void bench_sort_run(long n, void (*sort)(uint32_t *a, uint32_t *b, long n), bench_out_t *out)
{
    uint32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (a == NULL || b == NULL)
        abort();
    bench_fill_random(a, n);
    long long t0 = bench_now_ns();
    sort(a, b, n);
    out->seconds = (double)(bench_now_ns() - t0) * 1e-9;
    out->result = bench_is_sorted(a, n);
    free(a);
    free(b);
}

double bench_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

long bench_context_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

int bench_os_threads(void)
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

void bench_print_peer_line(const char *peer, const char *w, long n, int threads, double seconds,
                           const char *result, double cpu_s, long csw, const char *extra)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %s %ld %d %.6f %s cpu_s=%.6f maxrss_kb=%ld os_threads=%d csw=%ld%s\n", peer, w, n,
           threads, seconds, result, cpu_s, ru.ru_maxrss, bench_os_threads(), csw,
           extra != NULL ? extra : "");
    fflush(stdout);
}

/* ---- the sequential peer ------------------------------------------------- */

static long fib_seq(long n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long tick_count;
static void tick(void)
{
    tick_count++;
}
static void (*volatile tick_fn)(void) = tick; /* keep the N calls as calls */

/* The solutions below a partial placement; with nodes 1, the partial
 * placements themselves (the search's nodes) instead. */
static long queens_seq(int n, int row, unsigned cols, unsigned d1, unsigned d2, long nodes)
{
    if (row == n)
        return 1;
    long sum = nodes;
    unsigned avail = ~(cols | d1 | d2) & ((1u << n) - 1);
    while (avail != 0) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        sum += queens_seq(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1, nodes);
    }
    return sum;
}

long bench_queens_nodes(int n)
{
    return queens_seq(n, 0, 0, 0, 0, 1);
}

static void uts_seq(const uts_tree_t *t, const uts_node_t *node, long *nodes, long *leaves)
{
    int k = uts_num_children(t, node);
    ++*nodes;
    if (k == 0) {
        ++*leaves;
        return;
    }
    for (int i = 0; i < k; i++) {
        uts_node_t child;
        uts_child(node, i, &child);
        uts_seq(t, &child, nodes, leaves);
    }
}

/* Ping-pong merge sort: the result lands in b if to_b, else in a. */
static void sort_seq(uint32_t *a, uint32_t *b, long n, int to_b)
{
    if (n <= BENCH_SORT_CUTOFF) {
        bench_sort_leaf(a, b, n, to_b);
        return;
    }
    long h = n / 2;
    sort_seq(a, b, h, !to_b);
    sort_seq(a + h, b + h, n - h, !to_b);
    if (to_b)
        bench_merge(a, h, a + h, n - h, b);
    else
        bench_merge(b, h, b + h, n - h, a);
}

static void sort_seq_into_a(uint32_t *a, uint32_t *b, long n)
{
    sort_seq(a, b, n, 0);
}

static int seq_start(int threads)
{
    (void)threads;
    return 0;
}

static void seq_stop(void)
{
}

static int seq_run(const char *w, long n, bench_out_t *out)
{
    if (strcmp(w, "fib") == 0) {
        out->result = fib_seq(n);
    } else if (strncmp(w, "spawn-", 6) == 0) {
        tick_count = 0;
        for (long i = 0; i < n; i++)
            tick_fn();
        out->result = tick_count;
    } else if (strcmp(w, "nqueens") == 0) {
        out->result = queens_seq((int)n, 0, 0, 0, 0, 0);
    } else if (strcmp(w, "sporadic") == 0) {
        out->result = 0;
        for (long i = 0; i < n; i++) {
            out->result += tick_fn != NULL;
            bench_sleep_ns(BENCH_SPORADIC_SLEEP_NS);
        }
    } else if (strcmp(w, "wake") == 0) {
        long long *lat = malloc((size_t)n * sizeof *lat);
        for (long i = 0; i < n; i++) {
            bench_sleep_ns(i == 0 ? BENCH_WAKE_FIRST_GAP_NS : BENCH_WAKE_GAP_NS);
            long long t0 = bench_now_ns();
            lat[i] = bench_now_ns() - t0;
        }
        bench_percentiles(lat, n, &out->p50_us, &out->p99_us);
        free(lat);
        out->result = n;
    } else if (strncmp(w, "uts-", 4) == 0) {
        const uts_tree_t *t = strcmp(w, "uts-t1") == 0 ? &uts_t1 : &uts_t3;
        uts_node_t root;
        uts_root(t, &root);
        out->result = out->extra = 0;
        uts_seq(t, &root, &out->result, &out->extra);
    } else if (strcmp(w, "sort") == 0) {
        bench_sort_run(n, sort_seq_into_a, out);
    } else if (strcmp(w, "coarse") == 0) {
        out->result = 0;
        for (long i = 0; i < n; i++)
            for (int j = 0; j < bench_coarse_jobs(i); j++, out->result++)
                bench_busy_us(bench_coarse_us(i, j));
    } else if (strcmp(w, "coarse/mixed") == 0) {
        for (long j = 0; j < n; j++)
            bench_busy_us(bench_coarse_mixed_us(j));
        out->result = n;
    } else {
        return -1;
    }
    return 0;
}

const bench_peer_t bench_seq_peer = {"seq", seq_start, seq_run, seq_stop};

/* ---- T copies of the sequential peer, at once ---------------------------- */

/* What the machine gives T threads that share nothing: T plain threads each
 * run the whole sequential workload, started together.  Its time over seq's
 * is the ceiling of a T-thread speed-up here (vCPUs that are hyperthreads,
 * or that the host takes away, show as a ceiling below T).  Only for the
 * workloads whose sequential code shares no state between calls. */
static int copies_threads = 1;

typedef struct copy_run {
    pthread_barrier_t *start;
    const char *w;
    long n;
    bench_out_t out;
} copy_run_t;

static void *copy_main(void *arg)
{
    copy_run_t *c = arg;
    pthread_barrier_wait(c->start);
    seq_run(c->w, c->n, &c->out);
    return NULL;
}

static int copies_start(int threads)
{
    copies_threads = threads;
    return 0;
}

static int copies_run(const char *w, long n, bench_out_t *out)
{
    enum { MAX_COPIES = 64 };
    if (strcmp(w, "fib") != 0 && strcmp(w, "nqueens") != 0 && strncmp(w, "uts-", 4) != 0)
        return -1;
    int k = copies_threads < MAX_COPIES ? copies_threads : MAX_COPIES;
    copy_run_t runs[MAX_COPIES];
    pthread_t tids[MAX_COPIES];
    pthread_barrier_t start;
    if (pthread_barrier_init(&start, NULL, (unsigned)k + 1) != 0)
        return -1;
    int started = 0;
    for (; started < k; started++) {
        runs[started] = (copy_run_t){.start = &start, .w = w, .n = n};
        if (pthread_create(&tids[started], NULL, copy_main, &runs[started]) != 0)
            break;
    }
    if (started < k) { /* cannot run k at once: no figure rather than a wrong one */
        fprintf(stderr, "spool-bench: cannot start %d threads for seq-copies\n", k);
        exit(2);
    }
    long long t0 = bench_now_ns();
    pthread_barrier_wait(&start);
    for (int i = 0; i < k; i++)
        pthread_join(tids[i], NULL);
    double seconds = (double)(bench_now_ns() - t0) * 1e-9;
    pthread_barrier_destroy(&start);
    *out = (bench_out_t){.result = runs[0].out.result, .extra = runs[0].out.extra,
                         .seconds = seconds};
    for (int i = 1; i < k; i++)
        if (runs[i].out.result != runs[0].out.result || runs[i].out.extra != runs[0].out.extra)
            out->result = -1; /* a copy disagrees: fails the result check */
    return 0;
}

const bench_peer_t bench_copies_peer = {"seq-copies", copies_start, copies_run, seq_stop};
