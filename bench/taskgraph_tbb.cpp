// spool-taskgraph's oneTBB peer: a flow graph of continue_nodes, an edge per
// dependence, run in an arena of the given size (taskgraph.h).
#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <memory>
#include <vector>

#include "taskgraph.h"

extern "C" {
extern char tg_kind;
extern long tg_n;
void tg_body(long i);
long tg_good_count(void);
long tg_tbb_run(int threads, double *seconds);
}

long tg_tbb_run(int threads, double *seconds)
{
    using namespace tbb::flow;
    long count = taskgraph_count(tg_kind, tg_n);
    tbb::task_arena arena(threads);
    arena.initialize(); /* its threads start outside the timing, as the others' pools do */
    auto t0 = std::chrono::steady_clock::now();
    arena.execute([&] {
        graph g;
        std::vector<std::unique_ptr<continue_node<continue_msg>>> nodes;
        nodes.reserve((size_t)count);
        for (long i = 0; i < count; i++)
            nodes.push_back(std::make_unique<continue_node<continue_msg>>(
                g, [i](const continue_msg &) { tg_body(i); }));
        long preds[TASKGRAPH_MAX_PREDS];
        std::vector<long> roots;
        for (long i = 0; i < count; i++) {
            if (tg_kind == 'f' && i == tg_n + 1) {
                for (long j = 1; j <= tg_n; j++)
                    make_edge(*nodes[(size_t)j], *nodes[(size_t)i]);
                continue;
            }
            unsigned k = taskgraph_preds(tg_kind, tg_n, i, preds);
            if (k == 0)
                roots.push_back(i);
            for (unsigned j = 0; j < k; j++)
                make_edge(*nodes[(size_t)preds[j]], *nodes[(size_t)i]);
        }
        for (long r : roots)
            nodes[(size_t)r]->try_put(continue_msg());
        g.wait_for_all();
    });
    auto t1 = std::chrono::steady_clock::now();
    *seconds = std::chrono::duration<double>(t1 - t0).count();
    return tg_good_count();
}
