/* spool-bench's workloads on spool.  W1-W3, W6 and W7 run inside the pool
 * through spool_pool_install (the caller blocks outside it); W4 and W5
 * submit from the caller, which is never a pool thread. */
#include <spool.h>
#if defined(SPOOL_BENCH_INLINE_JOIN) || defined(SPOOL_BENCH_FORK_JOIN)
#include <spool_inline.h>
/* spool-peer-inline and spool-peer-fork: the same kernels with the join
 * compiled in (spool-peer-fork's fib: a fork and a sync, below). */
#define spool_join spool_join_inline
#endif
#ifdef SPOOL_BENCH_TYPED_JOIN
/* spool-peer-typed: fib as a typed task (spool_typed.h), the rest as
 * spool-peer's. */
#include <spool_typed.h>
#endif

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "kernels.h"
#include "uts.h"

static spool_pool_t *pool;

/* ---- W1 fib ---------------------------------------------------------------- */

typedef struct fib_task {
    long n, result;
} fib_task_t;

#ifdef SPOOL_BENCH_FORK_JOIN
/* fib(n-2) offered to thieves, fib(n-1) run, fib(n-2) run here unless a
 * thief took it: typed calls, as in the sequential fib, except for a b
 * that a thief (or the sync's wait) runs through fib_b. */
static long fib_typed(long n);

static void fib_b(void *arg)
{
    fib_task_t *t = arg;
    t->result = fib_typed(t->n);
}

static long fib_typed(long n)
{
    if (n < 2)
        return n;
    fib_task_t b; /* b.result: written by whichever runs b */
    b.n = n - 2;
    spool_fork_t f;
    spool_fork_inline(&f, fib_b, &b);
    long a = fib_typed(n - 1);
    if (spool_sync_inline(&f))
        b.result = fib_typed(n - 2);
    return a + b.result;
}

static void fib(void *arg)
{
    fib_task_t *t = arg;
    t->result = fib_typed(t->n);
}
#elif defined(SPOOL_BENCH_TYPED_JOIN)
SPOOL_TASK_1(long, fib_task, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(fib_task, n - 2);
    long a = SPOOL_CALL(fib_task, n - 1);
    return a + SPOOL_SYNC(fib_task);
}

static void fib(void *arg)
{
    fib_task_t *t = arg;
    t->result = SPOOL_RUN(fib_task, t->n);
}
#else
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
#endif

/* ---- W2 spawn -------------------------------------------------------------- */

static atomic_long counter;

static void tick(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
}

/* Per-worker counters on lines of their own: UTS's nodes and leaves, and
 * the spread spawns' calls (in nodes). */
enum { MAX_WORKERS = 1024 };
typedef struct uts_counts {
    _Alignas(64) long nodes, leaves;
} uts_counts_t;
static uts_counts_t uts_counts[MAX_WORKERS];

/* spawn-lifo/spread, spawn-fifo/spread: each call adds to the counter of
 * the worker that runs it, so no line is shared by the workload itself and
 * what is left is the pool's own cost. */
static void tick_spread(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    uts_counts[spool_current_thread_index()].nodes++;
}

/* A copying spawn's job: its copy is read, as a real job's would be. */
static void tick_copy(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add_explicit(&counter, *(const unsigned char *)arg, memory_order_relaxed);
}

/* How the spawns are made: W2 itself, or its variants with a copied
 * argument of 16 or 64 bytes, or into a task group (spool only), or with
 * a counter per worker. */
enum { SPAWN_PLAIN, SPAWN_COPY16, SPAWN_COPY64, SPAWN_GROUP, SPAWN_SPREAD };

typedef struct spawn_args {
    long n;
    int fifo, how;
} spawn_args_t;

static void spawn_n(spool_scope_t *s, void *arg)
{
    const spawn_args_t *a = arg;
    unsigned char block[64] = {1};
    if (a->how == SPAWN_COPY16 || a->how == SPAWN_COPY64) {
        size_t size = a->how == SPAWN_COPY16 ? 16 : 64;
        for (long i = 0; i < a->n; i++)
            spool_scope_spawn_copy(s, tick_copy, block, size);
        return;
    }
    spool_scope_fn fn = a->how == SPAWN_SPREAD ? tick_spread : tick;
    for (long i = 0; i < a->n; i++)
        spool_scope_spawn(s, fn, NULL);
}

static void spawn_in_scope(void *arg)
{
    spawn_args_t *a = arg;
    if (a->how == SPAWN_GROUP) {
        spool_group_t g;
        if (a->fifo)
            spool_group_init_fifo(&g);
        else
            spool_group_init(&g);
        for (long i = 0; i < a->n; i++)
            spool_group_spawn(&g, tick, NULL);
        spool_group_wait(&g);
    } else if (a->fifo) {
        spool_scope_fifo(spawn_n, a);
    } else {
        spool_scope(spawn_n, a);
    }
}

/* ---- coarse: uneven spawns of a loop's parts into one scope --------------- */

static atomic_long coarse_done;

typedef struct coarse_job {
    long i;
    int j;
} coarse_job_t;

static void coarse_run(spool_scope_t *s, void *arg)
{
    (void)s;
    const coarse_job_t *c = arg;
    bench_busy_us(c->j < 0 ? bench_coarse_mixed_us(c->i) : bench_coarse_us(c->i, c->j));
    atomic_fetch_add_explicit(&coarse_done, 1, memory_order_relaxed);
}

typedef struct coarse_call {
    spool_scope_t *scope;
    long n;
} coarse_call_t;

static void coarse_part(void *ctx, size_t b, size_t e)
{
    coarse_call_t *c = ctx;
    for (size_t i = b; i < e; i++)
        for (int j = 0; j < bench_coarse_jobs((long)i); j++) {
            coarse_job_t job = {(long)i, j};
            spool_scope_spawn_copy(c->scope, coarse_run, &job, sizeof job);
        }
}

static void coarse_body(spool_scope_t *s, void *arg)
{
    coarse_call_t c = {s, *(long *)arg};
    spool_for(0, (size_t)c.n, &(spool_for_opts_t){.max_len = 1}, coarse_part, &c);
}

static void coarse_mixed_body(spool_scope_t *s, void *arg)
{
    long n = *(long *)arg;
    for (long j = 0; j < n; j++) {
        coarse_job_t job = {j, -1};
        spool_scope_spawn_copy(s, coarse_run, &job, sizeof job);
    }
}

static void coarse_in_pool(void *arg)
{
    long *n = arg;
    spool_scope(n[1] ? coarse_mixed_body : coarse_body, n);
}

/* ---- W3 nqueens ------------------------------------------------------------- */

typedef struct queens {
    int n, row;
    unsigned cols, d1, d2;
    long result;
} queens_t;

typedef struct queens_frame {
    queens_t child[32];
    int count;
} queens_frame_t;

static void queens_call(void *arg);

static void queens_solve(spool_scope_t *s, void *arg)
{
    (void)s;
    queens_call(arg);
}

static void queens_body(spool_scope_t *s, void *arg)
{
    queens_frame_t *f = arg;
    for (int i = 0; i < f->count; i++)
        spool_scope_spawn(s, queens_solve, &f->child[i]);
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

/* ---- W4 sporadic, W5 wake ---------------------------------------------------- */

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
    *(long long *)arg = bench_now_ns();
}

/* ---- W6 UTS: a scope per node with children, a spawn per child ------------- */

static const uts_tree_t *uts_tree;

typedef struct uts_frame {
    uts_node_t *children;
    int count;
} uts_frame_t;

static void uts_visit(const uts_node_t *node);

static void uts_visit_child(spool_scope_t *s, void *arg)
{
    (void)s;
    uts_visit(arg);
}

static void uts_spawn_children(spool_scope_t *s, void *arg)
{
    uts_frame_t *f = arg;
    for (int i = 0; i < f->count; i++)
        spool_scope_spawn(s, uts_visit_child, &f->children[i]);
}

static void uts_visit(const uts_node_t *node)
{
    uts_counts_t *c = &uts_counts[spool_current_thread_index()];
    int k = uts_num_children(uts_tree, node);
    c->nodes++;
    if (k == 0) {
        c->leaves++;
        return;
    }
    uts_node_t local[8];
    uts_frame_t f = {k <= 8 ? local : malloc((size_t)k * sizeof(uts_node_t)), k};
    for (int i = 0; i < k; i++)
        uts_child(node, i, &f.children[i]);
    spool_scope(uts_spawn_children, &f);
    if (f.children != local)
        free(f.children);
}

static void uts_run(void *arg)
{
    uts_node_t root;
    uts_root(uts_tree, &root);
    uts_visit(&root);
    (void)arg;
}

/* ---- W7 sort: ping-pong merge sort with parallel merges -------------------- */

typedef struct sort_task {
    uint32_t *a, *b;
    long n;
    int to_b;
} sort_task_t;

static void merge_par(void *arg)
{
    bench_merge_task_t lo, hi;
    if (bench_merge_split(arg, &lo, &hi))
        spool_join(merge_par, &lo, merge_par, &hi);
}

static void sort_par(void *arg)
{
    sort_task_t *t = arg;
    if (t->n <= BENCH_SORT_CUTOFF) {
        bench_sort_leaf(t->a, t->b, t->n, t->to_b);
        return;
    }
    long h = t->n / 2;
    sort_task_t lo = {t->a, t->b, h, !t->to_b}, hi = {t->a + h, t->b + h, t->n - h, !t->to_b};
    spool_join(sort_par, &lo, sort_par, &hi);
    bench_merge_task_t m = bench_sort_merge(t->a, t->b, t->n, t->to_b);
    merge_par(&m);
}

static void sort_in_pool(uint32_t *a, uint32_t *b, long n)
{
    sort_task_t t = {a, b, n, 0};
    spool_pool_install(pool, sort_par, &t);
}

/* ---- the peer ------------------------------------------------------------------ */

static int spool_start(int threads)
{
    spool_config_t config = {.num_threads = (unsigned)threads};
    int err = spool_pool_create(&config, &pool);
    if (err == 0)
        bench_dp_spool_use(pool); /* W8-W14 run in it too */
    return err;
}

/* With SPOOL_BENCH_STATS set (spool-bench --stats), print each worker's
 * counters before the pool goes (spool built with -DSPOOL_STATS=ON). */
static void print_stats(void)
{
    if (getenv("SPOOL_BENCH_STATS") == NULL)
        return;
    const char *what = getenv("SPOOL_BENCH_STATS");
    for (unsigned i = 0; i < spool_pool_num_threads(pool); i++) {
        spool_worker_stats_t st;
        int err = spool_pool_stats(pool, i, &st, sizeof st);
        if (err != 0) {
            fprintf(stderr, "spool stats: %s\n", spool_strerror(err));
            return;
        }
        fprintf(stderr,
                "spool stats %s worker %u: jobs %llu, steals %llu, failed steals %llu, sleeps %llu, "
                "woken %llu, woke %llu, yields %llu, lock waits %llu, wake probes %llu, RMWs: "
                "sleep %llu, counts %llu, queues %llu, deques %llu\n",
                what, i, st.jobs_executed, st.steals, st.failed_steals, st.sleeps, st.wakeups_received,
                st.wakeups_sent, st.yields, st.lock_waits, st.wake_probes, st.rmw_sleep,
                st.rmw_counts, st.rmw_queues, st.rmw_deques);
    }
}

static void spool_stop(void)
{
    print_stats();
    spool_pool_destroy(pool);
}

static int spool_run(const char *w, long n, bench_out_t *out)
{
    if (strcmp(w, "fib") == 0) {
        fib_task_t t = {n, 0};
        spool_pool_install(pool, fib, &t);
        out->result = t.result;
    } else if (strncmp(w, "spawn-", 6) == 0) {
        const char *variant = strchr(w, '/');
        spawn_args_t a = {n, strncmp(w, "spawn-fifo", 10) == 0,
                          variant == NULL                        ? SPAWN_PLAIN
                          : strcmp(variant, "/copy16") == 0      ? SPAWN_COPY16
                          : strcmp(variant, "/copy64") == 0      ? SPAWN_COPY64
                          : strcmp(variant, "/spread") == 0      ? SPAWN_SPREAD
                                                                 : SPAWN_GROUP};
        atomic_store(&counter, 0);
        memset(uts_counts, 0, sizeof uts_counts);
        spool_pool_install(pool, spawn_in_scope, &a);
        out->result = atomic_load(&counter);
        for (int i = 0; i < MAX_WORKERS; i++)
            out->result += uts_counts[i].nodes;
    } else if (strncmp(w, "coarse", 6) == 0) {
        long args[2] = {n, strcmp(w, "coarse/mixed") == 0};
        atomic_store(&coarse_done, 0);
        spool_pool_install(pool, coarse_in_pool, args);
        out->result = atomic_load(&coarse_done);
    } else if (strcmp(w, "nqueens") == 0) {
        queens_t q = {(int)n, 0, 0, 0, 0, 0};
        spool_pool_install(pool, queens_call, &q);
        out->result = q.result;
    } else if (strcmp(w, "sporadic") == 0) {
        long done = 0;
        for (long i = 0; i < n; i++) {
            spool_pool_install(pool, sporadic_job, &done);
            bench_sleep_ns(BENCH_SPORADIC_SLEEP_NS);
        }
        out->result = done;
    } else if (strcmp(w, "wake") == 0) {
        long long *lat = malloc((size_t)n * sizeof *lat);
        for (long i = 0; i < n; i++) {
            bench_sleep_ns(i == 0 ? BENCH_WAKE_FIRST_GAP_NS : BENCH_WAKE_GAP_NS);
            long long started = 0, t0 = bench_now_ns();
            spool_pool_install(pool, stamp_start, &started);
            lat[i] = started - t0;
        }
        bench_percentiles(lat, n, &out->p50_us, &out->p99_us);
        free(lat);
        out->result = n;
    } else if (strncmp(w, "uts-", 4) == 0) {
        uts_tree = strcmp(w, "uts-t1") == 0 ? &uts_t1 : &uts_t3;
        memset(uts_counts, 0, sizeof uts_counts);
        spool_pool_install(pool, uts_run, NULL);
        out->result = out->extra = 0;
        for (int i = 0; i < MAX_WORKERS; i++) {
            out->result += uts_counts[i].nodes;
            out->extra += uts_counts[i].leaves;
        }
    } else if (strcmp(w, "sort") == 0) {
        bench_sort_run(n, sort_in_pool, out);
    } else {
        return -1;
    }
    return 0;
}

struct spool_pool *bench_spool_pool(void)
{
    return pool;
}

const bench_peer_t bench_spool_peer = {"spool", spool_start, spool_run, spool_stop};
