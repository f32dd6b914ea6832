/* spool-bench's workloads on OpenMP tasks (built with -fopenmp): one
 * `parallel num_threads(T)` region whose `single` thread runs the root, the
 * other threads taking tasks.  W2 spawn-fifo, W4 and W5 have no OpenMP form
 * here (n/a). */
#include <omp.h>

#include <stdlib.h>
#include <string.h>

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

static int omp_start(int threads)
{
    omp_threads = threads;
    return 0;
}

static void omp_stop(void)
{
}

static int omp_run(const char *w, long n, bench_out_t *out)
{
    if (strcmp(w, "spawn-fifo") == 0 || strcmp(w, "sporadic") == 0 || strcmp(w, "wake") == 0)
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
