// spool-stencil's oneTBB peer (stencil.h): a parallel_for per step in an
// arena of the given size, with the static_partitioner (default form) or
// with one affinity_partitioner kept across the steps ("affinity"), which
// replays each part on the thread that ran it at the step before.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <cstring>
#include <utility>

#include "stencil.h"
#include "tbb_arena.h"

int stencil_tbb(stencil_t *s, int threads)
{
    tbb::task_arena &arena = bench_tbb_arena(threads);
    bool affinity = s->form != nullptr && std::strcmp(s->form, "affinity") == 0;
    arena.execute([&] {
        tbb::affinity_partitioner ap;
        for (int k = 0; k < s->steps; k++) {
            const double *in = s->u;
            double *out = s->v;
            auto body = [&](const tbb::blocked_range<size_t> &r) {
                stencil_range(in, out, s->n, r.begin(), r.end());
            };
            tbb::blocked_range<size_t> all(0, s->n);
            if (affinity)
                tbb::parallel_for(all, body, ap);
            else
                tbb::parallel_for(all, body, tbb::static_partitioner());
            std::swap(s->u, s->v);
        }
    });
    return 0;
}
