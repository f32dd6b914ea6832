/*
 * A tour of what spool is for: three kernels at a realistic grain, each
 * timed sequentially, with spool on 1 thread and with spool on every CPU,
 * then (labelled as such) what a fork and a spawn cost.  No arguments; it
 * takes a few seconds.  Every result is checked against the sequential one.
 *
 *   spool_example_tour [--quick]      (--quick: small sizes, for the tests)
 */
#include <spool.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- a busy machine --------------------------------------------------------
 * A speed-up is only as good as the CPUs were free: each row also says how
 * much of the machine other processes (or, in a VM, its host) took while it
 * ran, from /proc/stat's busy time less this process's own CPU time. */

typedef struct sample {
    double wall, busy, own; /* seconds; busy < 0: not known here */
} sample_t;

static sample_t sample(void)
{
    sample_t s = {now(), -1, 0};
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        s.own = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL)
        return s;
    unsigned long long v[8] = {0};
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) == 8) {
        long hz = sysconf(_SC_CLK_TCK);
        /* user, nice, system, irq, softirq, steal: all but idle and iowait */
        s.busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)(hz > 0 ? hz : 100);
    }
    fclose(f);
    return s;
}

/* The share of the machine's CPUs other processes took from start until
 * now (-1 if not known). */
static double others_share(sample_t start)
{
    sample_t end = sample();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double wall = end.wall - start.wall;
    if (start.busy < 0 || end.busy < 0 || wall <= 0 || cpus <= 0)
        return -1;
    double others = (end.busy - start.busy) - (end.own - start.own);
    return others > 0 ? others / (wall * (double)cpus) : 0;
}

static int busy_rows; /* rows whose machine was busy */

/* ---- 1. merge sort: halves sorted in parallel, a sequential cut-off ---- */

enum { SORT_CUTOFF = 4096 };

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void merge(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = b[j] < a[i] ? b[j++] : a[i++];
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

typedef struct sort_task {
    uint32_t *a, *tmp;
    size_t n;
    int parallel;
} sort_task_t;

/* Sorts a[0, n) using tmp[0, n). */
static void sort_run(void *arg)
{
    sort_task_t *t = arg;
    if (t->n <= SORT_CUTOFF) {
        qsort(t->a, t->n, sizeof *t->a, cmp_u32);
        return;
    }
    size_t half = t->n / 2;
    sort_task_t lo = {t->a, t->tmp, half, t->parallel};
    sort_task_t hi = {t->a + half, t->tmp + half, t->n - half, t->parallel};
    if (t->parallel) {
        spool_join(sort_run, &lo, sort_run, &hi);
    } else {
        sort_run(&lo);
        sort_run(&hi);
    }
    merge(t->a, half, t->a + half, t->n - half, t->tmp);
    memcpy(t->a, t->tmp, t->n * sizeof *t->a);
}

/* ---- 2. fib with a sequential cut-off: the usual way to use join ------- */

enum { FIB_CUTOFF = 25 };

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

typedef struct fib_task {
    int n;
    long result;
} fib_task_t;

static void fib_plain(void *arg)
{
    fib_task_t *t = arg;
    t->result = fib_seq(t->n);
}

static void fib_par(void *arg)
{
    fib_task_t *t = arg;
    if (t->n < FIB_CUTOFF) {
        t->result = fib_seq(t->n);
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join(fib_par, &a, fib_par, &b);
    t->result = a.result + b.result;
}

/* fib with a join at every call: the cost of a fork, not a use of spool. */
static void fib_every(void *arg)
{
    fib_task_t *t = arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join(fib_every, &a, fib_every, &b);
    t->result = a.result + b.result;
}

/* ---- 3. Mandelbrot: a loop whose rows cost very different amounts ------ */

typedef struct image {
    long rows, cols;
    long *counts;
} image_t;

static long mandel_row(const image_t *im, long py)
{
    long count = 0;
    double cy = 1.25 * (double)py / (double)im->rows;
    for (long px = 0; px < im->cols; px++) {
        double cx = -2.0 + 2.5 * (double)px / (double)im->cols, x = 0, y = 0;
        int k = 0;
        while (k < 1000 && x * x + y * y <= 4.0) {
            double t = x * x - y * y + cx;
            y = 2.0 * x * y + cy;
            x = t;
            k++;
        }
        count += k;
    }
    return count;
}

static void mandel_rows(void *ctx, size_t begin, size_t end)
{
    image_t *im = ctx;
    for (size_t py = begin; py < end; py++)
        im->counts[py] = mandel_row(im, (long)py);
}

static void mandel_plain(void *arg)
{
    image_t *im = arg;
    mandel_rows(im, 0, (size_t)im->rows);
}

static void mandel_par(void *arg)
{
    image_t *im = arg;
    spool_for_opts_t rows = {.max_len = 1}; /* a part per row: rows differ 1000x */
    spool_for(0, (size_t)im->rows, &rows, mandel_rows, im);
}

/* ---- spawns: a million tiny jobs, for their cost -------------------------- */

static long spawned_sum;
static void add_one(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    __atomic_fetch_add(&spawned_sum, 1, __ATOMIC_RELAXED);
}

typedef struct spawns {
    long n;
} spawns_t;

static void spawn_all(spool_scope_t *s, void *arg)
{
    for (long i = 0; i < ((spawns_t *)arg)->n; i++)
        spool_scope_spawn(s, add_one, NULL);
}

static void spawn_scope(void *arg)
{
    spool_scope(spawn_all, arg);
}

/* ---- driver -------------------------------------------------------------------- */

/* Median of 3 timings of fn(arg) in pool (NULL: on this thread). */
static double time_in(spool_pool_t *pool, spool_fn fn, void *arg, void (*reset)(void *))
{
    double t[3];
    for (int r = 0; r < 3; r++) {
        if (reset != NULL)
            reset(arg);
        double t0 = now();
        if (pool != NULL)
            spool_pool_install(pool, fn, arg);
        else
            fn(arg);
        t[r] = now() - t0;
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    return t[1];
}

static uint32_t *sort_input;
static size_t sort_n;
static void sort_reset(void *arg)
{
    memcpy(((sort_task_t *)arg)->a, sort_input, sort_n * sizeof *sort_input);
}

static int ok = 1;

/* A kernel's row; busy: the share of the machine others took meanwhile. */
static void row(const char *name, double seq, double one, double all, unsigned threads,
                double busy)
{
    printf("%-30s %9.3f %9.3f %9.3f   %5.2fx on %u threads", name, seq, one, all, seq / all,
           threads);
    if (busy >= 0.10) {
        printf("  (busy machine: others took %.0f%% of its CPUs)", busy * 100);
        busy_rows++;
    }
    printf("\n");
}

static void check(int good, const char *what)
{
    if (!good) {
        printf("WRONG result: %s\n", what);
        ok = 0;
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    spool_pool_t *one, *all;
    spool_config_t c1 = SPOOL_CONFIG_INIT;
    c1.num_threads = 1;
    if (spool_pool_create(&c1, &one) != 0 || spool_pool_create(NULL, &all) != 0) {
        fprintf(stderr, "cannot start the pools\n");
        return 1;
    }
    unsigned threads = spool_pool_num_threads(all);
    printf("spool %u.%u.%u on %u threads (SPOOL_NUM_THREADS, else the CPUs); median of 3 runs\n\n",
           SPOOL_VERSION_MAJOR, SPOOL_VERSION_MINOR, SPOOL_VERSION_PATCH, threads);
    printf("%-30s %9s %9s %9s   %s\n", "kernel", "seq s", "1 thread", "all", "speed-up");

    /* 1. sort */
    sort_n = quick ? 200000 : 4000000;
    sort_input = malloc(sort_n * sizeof *sort_input);
    uint32_t *a = malloc(sort_n * sizeof *a), *tmp = malloc(sort_n * sizeof *tmp);
    if (sort_input == NULL || a == NULL || tmp == NULL)
        return 1;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sort_n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sort_input[i] = (uint32_t)x;
    }
    sort_task_t seq_sort = {a, tmp, sort_n, 0}, par_sort = {a, tmp, sort_n, 1};
    sample_t t0 = sample();
    double s_seq = time_in(NULL, sort_run, &seq_sort, sort_reset);
    double s_one = time_in(one, sort_run, &par_sort, sort_reset);
    double s_all = time_in(all, sort_run, &par_sort, sort_reset);
    for (size_t i = 1; i < sort_n; i++)
        if (a[i - 1] > a[i]) {
            check(0, "sort");
            break;
        }
    char label[64];
    snprintf(label, sizeof label, "merge sort, %zuM ints", sort_n / 1000000 ? sort_n / 1000000 : 1);
    if (quick)
        snprintf(label, sizeof label, "merge sort, %zu ints", sort_n);
    row(label, s_seq, s_one, s_all, threads, others_share(t0));

    /* 2. fib with a cut-off */
    int fn = quick ? 27 : 36;
    fib_task_t f = {fn, 0};
    t0 = sample();
    double f_seq = time_in(NULL, fib_plain, &f, NULL);
    long want = f.result;
    double f_one = time_in(one, fib_par, &f, NULL);
    check(f.result == want, "fib");
    double f_all = time_in(all, fib_par, &f, NULL);
    check(f.result == want, "fib");
    snprintf(label, sizeof label, "fib(%d), joins above %d", fn, FIB_CUTOFF);
    row(label, f_seq, f_one, f_all, threads, others_share(t0));

    /* 3. Mandelbrot */
    image_t im = {quick ? 64 : 512, quick ? 128 : 1024, NULL};
    im.counts = calloc((size_t)im.rows, sizeof *im.counts);
    long *seq_counts = calloc((size_t)im.rows, sizeof *seq_counts);
    if (im.counts == NULL || seq_counts == NULL)
        return 1;
    t0 = sample();
    double m_seq = time_in(NULL, mandel_plain, &im, NULL);
    memcpy(seq_counts, im.counts, (size_t)im.rows * sizeof *seq_counts);
    memset(im.counts, 0, (size_t)im.rows * sizeof *im.counts);
    double m_one = time_in(one, mandel_par, &im, NULL);
    double m_all = time_in(all, mandel_par, &im, NULL);
    check(memcmp(im.counts, seq_counts, (size_t)im.rows * sizeof *seq_counts) == 0, "mandelbrot");
    snprintf(label, sizeof label, "Mandelbrot %ldx%ld, spool_for", im.cols, im.rows);
    row(label, m_seq, m_one, m_all, threads, others_share(t0));
    if (busy_rows > 0)
        printf("(other processes, or the VM's host, took CPUs while the marked rows ran: "
               "their speed-ups are low by up to that share)\n");

    /* Overheads: what spool costs where there is no work to share. */
    int fo = quick ? 20 : 27;
    fib_task_t e = {fo, 0};
    double e_one = time_in(one, fib_every, &e, NULL);
    check(e.result == fib_seq(fo), "fib");
    double forks = 0, p = 0, q = 1; /* fib(fo + 1) - 1 joins */
    for (int i = 0; i < fo + 1; i++) {
        double r = p + q;
        p = q;
        q = r;
    }
    forks = p - 1;
    spawns_t sp = {quick ? 100000 : 1000000};
    spawned_sum = 0;
    double sp_one = time_in(one, spawn_scope, &sp, NULL);
    check(spawned_sum == 3 * sp.n, "spawns");
    printf("\nOverheads (the cost of the machinery, not what spool is for), 1 thread:\n");
    printf("  a fork (spool_join, fib(%d) with a join at every call): %.1f ns\n", fo,
           e_one / forks * 1e9);
    printf("  a spawn (%ld spool_scope_spawn of an empty job):       %.1f ns\n", sp.n,
           sp_one / (double)sp.n * 1e9);

    spool_pool_destroy(one);
    spool_pool_destroy(all);
    free(sort_input);
    free(a);
    free(tmp);
    free(im.counts);
    free(seq_counts);
    printf("%s\n", ok ? "\nall results checked: ok" : "\nSOME RESULTS WERE WRONG");
    return ok ? 0 : 1;
}
