// spool-search's oneTBB peer (search.h): parallel_for over parts of
// SEARCH_CHUNK in an arena of the given size; "any" cancels the group at
// the first match (task_group_context), "first" lowers a shared answer that
// parts above it skip on.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <atomic>

#include "search.h"
#include "tbb_arena.h"

extern "C" size_t search_tbb(const search_t *s, int threads);

size_t search_tbb(const search_t *s, int threads)
{
    tbb::task_arena &arena = bench_tbb_arena(threads);
    std::atomic<size_t> found{s->n};
    arena.execute([&] {
        tbb::task_group_context ctx;
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, s->n, SEARCH_CHUNK),
            [&](const tbb::blocked_range<size_t> &r) {
                size_t seen = found.load(std::memory_order_relaxed);
                if (!s->any && r.begin() > seen)
                    return;
                size_t i = search_scan(s->a, s->key, r.begin(), r.end());
                if (i == r.end())
                    return;
                while (i < seen && !found.compare_exchange_weak(seen, i, std::memory_order_relaxed))
                    ;
                if (s->any)
                    ctx.cancel_group_execution();
            },
            tbb::simple_partitioner(), ctx);
    });
    return found.load();
}
