// spool-bench's workloads on oneTBB: a task_arena of T threads (with
// global_control capping the parallelism), the caller entering it with
// execute(); task_group per fork point, parallel_invoke for the binary forks.
// W2 spawn-fifo, W4 and W5 have no oneTBB form here (n/a).
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/enumerable_thread_specific.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "dp.h"
#include "kernels.h"
#include "uts.h"

namespace {

std::unique_ptr<tbb::global_control> control;
std::unique_ptr<tbb::task_arena> arena;

long fib(long n)
{
    if (n < 2)
        return n;
    long a = 0, b = 0;
    tbb::parallel_invoke([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
    return a + b;
}

long queens(int n, int row, unsigned cols, unsigned d1, unsigned d2)
{
    if (row == n)
        return 1;
    long cnt[32];
    int k = 0;
    tbb::task_group g;
    unsigned avail = ~(cols | d1 | d2) & ((1u << n) - 1);
    while (avail != 0) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        int slot = k++;
        g.run([=, &cnt] { cnt[slot] = queens(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1); });
    }
    g.wait();
    long sum = 0;
    for (int i = 0; i < k; i++)
        sum += cnt[i];
    return sum;
}

struct counts {
    long nodes = 0, leaves = 0;
};

void uts_visit(const uts_tree_t *t, const uts_node_t *node, tbb::enumerable_thread_specific<counts> &c)
{
    counts &mine = c.local();
    int k = uts_num_children(t, node);
    mine.nodes++;
    if (k == 0) {
        mine.leaves++;
        return;
    }
    std::vector<uts_node_t> children(static_cast<size_t>(k));
    tbb::task_group g;
    for (int i = 0; i < k; i++) {
        uts_child(node, i, &children[static_cast<size_t>(i)]);
        const uts_node_t *child = &children[static_cast<size_t>(i)];
        g.run([t, child, &c] { uts_visit(t, child, c); });
    }
    g.wait();
}

void merge_par(const bench_merge_task_t *m)
{
    bench_merge_task_t lo, hi;
    if (bench_merge_split(m, &lo, &hi))
        tbb::parallel_invoke([&] { merge_par(&lo); }, [&] { merge_par(&hi); });
}

void sort_par(uint32_t *a, uint32_t *b, long n, bool to_b)
{
    if (n <= BENCH_SORT_CUTOFF) {
        bench_sort_leaf(a, b, n, to_b);
        return;
    }
    long h = n / 2;
    tbb::parallel_invoke([&] { sort_par(a, b, h, !to_b); },
                         [&] { sort_par(a + h, b + h, n - h, !to_b); });
    bench_merge_task_t m = bench_sort_merge(a, b, n, to_b);
    merge_par(&m);
}

void sort_in_arena(uint32_t *a, uint32_t *b, long n)
{
    arena->execute([&] { sort_par(a, b, n, false); });
}

int tbb_start(int threads)
{
    control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(threads));
    arena = std::make_unique<tbb::task_arena>(threads);
    return 0;
}

void tbb_stop()
{
    arena.reset();
    control.reset();
}

int tbb_run(const char *w, long n, bench_out_t *out)
{
    bool spread = !std::strcmp(w, "spawn-lifo/spread");
    if (!std::strcmp(w, "spawn-fifo") || !std::strcmp(w, "sporadic") || !std::strcmp(w, "wake") ||
        (std::strchr(w, '/') && !spread) || !std::strncmp(w, "coarse", 6))
        return -1;
    if (!std::strcmp(w, "fib")) {
        arena->execute([&] { out->result = fib(n); });
    } else if (!std::strcmp(w, "spawn-lifo")) {
        std::atomic<long> counter{0};
        arena->execute([&] {
            tbb::task_group g;
            for (long i = 0; i < n; i++)
                g.run([&] { counter.fetch_add(1, std::memory_order_relaxed); });
            g.wait();
        });
        out->result = counter.load();
    } else if (spread) {
        // Each task adds to its thread's own counter.
        tbb::enumerable_thread_specific<counts> c;
        arena->execute([&] {
            tbb::task_group g;
            for (long i = 0; i < n; i++)
                g.run([&] { c.local().nodes++; });
            g.wait();
        });
        out->result = 0;
        for (const counts &x : c)
            out->result += x.nodes;
    } else if (!std::strcmp(w, "nqueens")) {
        arena->execute([&] { out->result = queens(static_cast<int>(n), 0, 0, 0, 0); });
    } else if (!std::strncmp(w, "uts-", 4)) {
        const uts_tree_t *t = !std::strcmp(w, "uts-t1") ? &uts_t1 : &uts_t3;
        tbb::enumerable_thread_specific<counts> c;
        arena->execute([&] {
            uts_node_t root;
            uts_root(t, &root);
            uts_visit(t, &root, c);
        });
        out->result = out->extra = 0;
        for (const counts &x : c) {
            out->result += x.nodes;
            out->extra += x.leaves;
        }
    } else if (!std::strcmp(w, "sort")) {
        bench_sort_run(n, sort_in_arena, out);
    } else {
        return -1;
    }
    return 0;
}

} // namespace

// W8-W14 (dp.h): parallel_for and parallel_reduce with the auto partitioner,
// in the arena (triad/static: static_partitioner); nested: the inner loop a
// parallel_reduce too; loop-in-join:
// parallel_invoke with parallel_for leaves; small-loops outside: an
// arena.execute per call.  oneTBB has no broadcast (n/a).
extern "C" int bench_dp_tbb(const char *w, bench_dp_t *d)
{
    using range = tbb::blocked_range<long>;
    const char *v = d->variant;
    long n = d->n;
    long gap = !std::strcmp(w, "small-loops") ? bench_dp_gap_us(v) : -1;
    if (v != nullptr && gap < 0 && !(!std::strcmp(w, "small-loops") && !std::strcmp(v, "inside")) &&
        !(!std::strcmp(w, "triad") && !std::strcmp(v, "static")))
        return -1;
    auto small_call = [d] {
        tbb::parallel_for(range(0, BENCH_DP_SMALL_LEN), [d](const range &r) {
            bench_dp_small_range(d->a, static_cast<size_t>(r.begin()), static_cast<size_t>(r.end()));
        });
    };
    if (!std::strcmp(w, "triad")) {
        auto body = [d](const range &r) {
            bench_dp_triad_range(d, static_cast<size_t>(r.begin()), static_cast<size_t>(r.end()));
        };
        bool stat = v != nullptr; // triad/static: static_partitioner
        arena->execute([&] {
            for (int p = 0; p < BENCH_DP_TRIAD_PASSES; p++) {
                if (stat)
                    tbb::parallel_for(range(0, n), body, tbb::static_partitioner());
                else
                    tbb::parallel_for(range(0, n), body);
            }
        });
    } else if (!std::strcmp(w, "mandelbrot")) {
        arena->execute([&] {
            tbb::parallel_for(range(0, n), [d, n](const range &r) {
                for (long py = r.begin(); py < r.end(); py++)
                    d->rows[py] = bench_dp_mandel_row(py, n);
            });
        });
    } else if (!std::strcmp(w, "small-loops") && (v == nullptr || gap >= 0)) {
        for (long k = 0; k < n; k++) {
            if (gap > 0)
                bench_dp_busy_ns(static_cast<long long>(gap) * 1000);
            arena->execute(small_call);
        }
    } else if (!std::strcmp(w, "small-loops")) {
        arena->execute([&] {
            for (long k = 0; k < n; k++)
                small_call();
        });
    } else if (!std::strcmp(w, "sum")) {
        arena->execute([&] {
            for (int p = 0; p < BENCH_DP_SUM_PASSES; p++)
                d->sum = tbb::parallel_reduce(
                    range(0, n), 0.0,
                    [d](const range &r, double s) {
                        return bench_dp_sum_range(d->a, s, static_cast<size_t>(r.begin()),
                                                  static_cast<size_t>(r.end()));
                    },
                    [](double x, double y) { return x + y; });
        });
    } else if (!std::strcmp(w, "nested")) {
        arena->execute([&] {
            tbb::parallel_for(range(0, n), [d](const range &r) {
                for (long i = r.begin(); i < r.end(); i++)
                    d->a[i] = tbb::parallel_reduce(
                        range(0, i + 1), 0.0,
                        [i](const range &q, double s) {
                            return bench_dp_terms(static_cast<uint64_t>(i), s,
                                                  static_cast<uint64_t>(q.begin()),
                                                  static_cast<uint64_t>(q.end()));
                        },
                        [](double x, double y) { return x + y; });
            });
        });
    } else if (!std::strcmp(w, "loop-in-join")) {
        struct rec {
            static void run(double *x, long lo, long hi, int depth)
            {
                if (depth == 3) {
                    tbb::parallel_for(range(lo, hi), [x](const range &r) {
                        bench_dp_lij_range(x, static_cast<size_t>(r.begin()),
                                           static_cast<size_t>(r.end()));
                    });
                    return;
                }
                long mid = lo + (hi - lo) / 2;
                tbb::parallel_invoke([&] { run(x, lo, mid, depth + 1); },
                                     [&] { run(x, mid, hi, depth + 1); });
            }
        };
        arena->execute([&] { rec::run(d->a, 0, n, 0); });
    } else {
        return -1;
    }
    return 0;
}

extern "C" const bench_peer_t bench_tbb_peer = {"onetbb", tbb_start, tbb_run, tbb_stop};
