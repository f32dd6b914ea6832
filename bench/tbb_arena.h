// The oneTBB peers' arena of a given size, made once per thread count and
// kept, so that its threads start before a timed section (spool-search,
// spool-stencil).  C++ only.
#ifndef SPOOL_BENCH_TBB_ARENA_H
#define SPOOL_BENCH_TBB_ARENA_H

#include <tbb/task_arena.h>

static inline tbb::task_arena &bench_tbb_arena(int threads)
{
    static tbb::task_arena *arena;
    static int arena_threads;
    if (arena == nullptr || arena_threads != threads) {
        delete arena;
        arena = new tbb::task_arena(threads);
        arena->initialize();
        arena_threads = threads;
    }
    return *arena;
}

#endif
