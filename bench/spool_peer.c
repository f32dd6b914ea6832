/*
 * spool-peer: spool on the shared peer workloads.
 *
 *   spool-peer WORKLOAD N THREADS
 *
 * WORKLOAD is fib, spawn-lifo, spawn-fifo, nqueens, sporadic or wake, with
 * the definitions and the one-line output of the team's peer comparison
 * (workload n threads seconds result cpu_s maxrss_kb os_threads [p50 p99]),
 * so that it can sit in the same table as rayon-core, oneTBB and OpenMP.
 * The pool is created and warmed up with a small instance first; W1-W3 run
 * inside the pool through spool_pool_install while main blocks outside it,
 * W4-W5 submit from main, which is never a pool thread.
 */
#include <spool.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { MAX_SAMPLES = 100000 };

static long long clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void nap_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double process_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

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

/* ---- W1 fib -------------------------------------------------------------- */

typedef struct fib_task {
    long n, result;
} fib_task_t;

static void fib(void *arg)
{
    fib_task_t *t = arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join(fib, &a, fib, &b);
    t->result = a.result + b.result;
}

/* ---- W2 spawn ------------------------------------------------------------ */

static atomic_long counter;

static void tick(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
}

static void spawn_n(spool_scope_t *s, void *arg)
{
    long n = *(long *)arg;
    for (long i = 0; i < n; i++)
        spool_scope_spawn(s, tick, NULL);
}

/* ---- W3 nqueens ---------------------------------------------------------- */

typedef struct queens {
    int n, row;
    unsigned cols, d1, d2;
    long result;
} queens_t;

static void queens_solve(spool_scope_t *s, void *arg);

static void queens_call(void *arg);

typedef struct queens_frame {
    queens_t child[32];
    int count;
} queens_frame_t;

static void queens_body(spool_scope_t *s, void *arg)
{
    queens_frame_t *f = arg;
    for (int i = 0; i < f->count; i++)
        spool_scope_spawn(s, queens_solve, &f->child[i]);
}

static void queens_solve(spool_scope_t *s, void *arg)
{
    (void)s;
    queens_call(arg);
}

static void queens_call(void *arg)
{
    queens_t *q = arg;
    if (q->row == q->n) {
        q->result = 1;
        return;
    }
    queens_frame_t f;
    f.count = 0;
    unsigned avail = ~(q->cols | q->d1 | q->d2) & ((1u << q->n) - 1);
    while (avail != 0) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        f.child[f.count++] = (queens_t){q->n, q->row + 1, q->cols | bit, (q->d1 | bit) << 1,
                                        (q->d2 | bit) >> 1, 0};
    }
    spool_scope(queens_body, &f);
    long sum = 0;
    for (int i = 0; i < f.count; i++)
        sum += f.child[i].result;
    q->result = sum;
}

/* ---- W4 sporadic and W5 wake ---------------------------------------------- */

static void return_one(void *arg)
{
    *(int *)arg = 1;
}
static void return_two(void *arg)
{
    *(int *)arg = 2;
}

static void sporadic_job(void *arg)
{
    int one = 0, two = 0;
    spool_join(return_one, &one, return_two, &two);
    *(long *)arg += one + two == 3;
}

static void stamp_start(void *arg)
{
    *(long long *)arg = clock_ns();
}

/* ---- driver -------------------------------------------------------------- */

typedef struct run_ctx {
    const char *workload;
    long n;
    spool_pool_t *pool;
    long long *latencies;
} run_ctx_t;

static void spawn_in_scope(void *arg)
{
    run_ctx_t *c = arg;
    if (strcmp(c->workload, "spawn-fifo") == 0)
        spool_scope_fifo(spawn_n, &c->n);
    else
        spool_scope(spawn_n, &c->n);
}

static long run(run_ctx_t *c)
{
    const char *w = c->workload;
    if (strcmp(w, "fib") == 0) {
        fib_task_t t = {c->n, 0};
        spool_pool_install(c->pool, fib, &t);
        return t.result;
    }
    if (strcmp(w, "spawn-lifo") == 0 || strcmp(w, "spawn-fifo") == 0) {
        atomic_store(&counter, 0);
        spool_pool_install(c->pool, spawn_in_scope, c);
        return atomic_load(&counter);
    }
    if (strcmp(w, "nqueens") == 0) {
        queens_t q = {(int)c->n, 0, 0, 0, 0, 0};
        spool_pool_install(c->pool, queens_call, &q);
        return q.result;
    }
    if (strcmp(w, "sporadic") == 0) {
        long done = 0;
        for (long i = 0; i < c->n; i++) {
            spool_pool_install(c->pool, sporadic_job, &done);
            nap_ns(1000000L);
        }
        return done;
    }
    if (strcmp(w, "wake") == 0) {
        for (long i = 0; i < c->n; i++) {
            nap_ns(i == 0 ? 50000000L : 5000000L);
            long long started = 0, t0 = clock_ns();
            spool_pool_install(c->pool, stamp_start, &started);
            c->latencies[i] = started - t0;
        }
        return c->n;
    }
    fprintf(stderr, "spool-peer: unknown workload %s\n", w);
    exit(2);
}

static long expected_result(const char *w, long n)
{
    static const long queens[] = {1,   1,   0,    0,     2,     10,     4,      40,
                                  92,  352, 724,  2680,  14200, 73712,  365596, 2279184};
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
    return n;
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKLOAD N THREADS\n", argv[0]);
        return 2;
    }
    run_ctx_t c = {.workload = argv[1], .n = atol(argv[2])};
    int threads = atoi(argv[3]);
    if (c.n < 0 || (strcmp(c.workload, "wake") == 0 && c.n > MAX_SAMPLES) || threads < 1)
        return 2;
    static long long latencies[MAX_SAMPLES];
    c.latencies = latencies;
    spool_config_t config = {.num_threads = (unsigned)threads};
    int err = spool_pool_create(&config, &c.pool);
    if (err != 0) {
        fprintf(stderr, "spool-peer: %s\n", spool_strerror(err));
        return 2;
    }
    long full = c.n;
    const char *w = c.workload;
    c.n = strcmp(w, "fib") == 0 ? 20
          : strcmp(w, "nqueens") == 0 ? 8
          : strncmp(w, "spawn-", 6) == 0 ? 1000
                                         : 10;
    run(&c); /* untimed warm-up */
    c.n = full;

    double cpu0 = process_cpu_s();
    long long t0 = clock_ns();
    long result = run(&c);
    double seconds = (double)(clock_ns() - t0) * 1e-9, cpu = process_cpu_s() - cpu0;

    char extra[96] = "";
    if (strcmp(w, "wake") == 0 && c.n > 0) {
        size_t m = (size_t)c.n, r99 = (99 * m + 99) / 100;
        qsort(latencies, m, sizeof latencies[0], compare_ll);
        double p50 = m % 2 ? (double)latencies[m / 2]
                           : 0.5 * (double)(latencies[m / 2 - 1] + latencies[m / 2]);
        snprintf(extra, sizeof extra, " p50_us=%.2f p99_us=%.2f", p50 / 1e3,
                 (double)latencies[r99 - 1] / 1e3);
    }
    printf("spool %s %ld %d %.6f %ld cpu_s=%.6f maxrss_kb=%ld os_threads=%d%s\n", w, c.n,
           threads, seconds, result, cpu, peak_rss_kb(), thread_count(), extra);
    fflush(stdout);
    spool_pool_destroy(c.pool);
    if (result != expected_result(w, c.n)) {
        fprintf(stderr, "spool %s %ld: WRONG result %ld, expected %ld\n", w, c.n, result,
                expected_result(w, c.n));
        return 1;
    }
    return 0;
}
