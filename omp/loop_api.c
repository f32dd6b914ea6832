/* The GOMP_loop entry points, long and unsigned long long, onto loop.c's
 * logical iteration space. */
#include "barrier.h"
#include "gomp_abi.h"
#include "loop.h"
#include "task.h"
#include "team.h"
#include "work.h"

typedef unsigned long long u64;

static unsigned team_size(const spool__omp_thread_t *thr)
{
    return thr->ts.team != NULL ? thr->ts.team->nthreads : 1;
}

/* The chunk of a loop with the simd modifier of width simd (asked: its
 * schedule as asked; kind, chunk: as resolved), as libomp takes it: a
 * runtime schedule's chunk times the width (static without one: balanced
 * blocks), else the width. */
static u64 simd_chunk(int asked, int kind, u64 chunk, u64 simd)
{
    if ((asked & ~SPOOL_OMP_SCHED_MONOTONIC) != SPOOL_OMP_SCHED_RUNTIME)
        return kind == SPOOL_OMP_SCHED_STATIC ? 0 : simd;
    if (kind == SPOOL_OMP_SCHED_STATIC && chunk == 0)
        return 0;
    return (chunk > 0 ? chunk : 1) * simd;
}

void spool__omp_loop_enter(spool__omp_thread_t *thr, u64 start, u64 end, u64 incr, u64 n,
                           long sched, u64 chunk, bool ordered, uintptr_t *reductions, void **mem)
{
    thr->ts.static_trip = 0;
    thr->ts.ticket = -1;
    if (spool__omp_ws_enter_reducing(thr, reductions)) {
        spool__omp_ws_t *ws = thr->ts.ws;
        u64 simd = (sched & SPOOL_OMP_SCHED_SIMD) ? (chunk > 0 ? chunk : 1) : 0;
        int kind = spool__omp_sched_resolve((int)(sched & ~SPOOL_OMP_SCHED_SIMD), &chunk);
        if (simd != 0)
            chunk = simd_chunk((int)(sched & ~SPOOL_OMP_SCHED_SIMD), kind, chunk, simd);
        spool__omp_loop_init(ws, start, end, incr, n, kind, chunk, team_size(thr));
        /* Chunks a multiple of the chunk, balanced blocks of the width. */
        ws->simd = simd == 0 ? 0 : chunk != 0 ? chunk : simd;
        ws->ordered = ordered;
        if (mem != NULL)
            spool__omp_ws_mem(ws, (size_t)(uintptr_t)*mem);
        spool__omp_ws_ready(thr);
    }
    if (mem != NULL)
        *mem = thr->ts.ws->mem;
}

/* A chunk in the loop's own values (its end for the last one). */
static bool next_l(long *istart, long *iend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    u64 from, to;
    if (!spool__omp_loop_next(thr, &from, &to))
        return false;
    const spool__omp_ws_t *ws = thr->ts.ws;
    *istart = (long)(ws->start + from * ws->incr);
    *iend = to == ws->n ? (long)ws->end : (long)(ws->start + to * ws->incr);
    return true;
}

static bool next_u(u64 *istart, u64 *iend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    u64 from, to;
    if (!spool__omp_loop_next(thr, &from, &to))
        return false;
    const spool__omp_ws_t *ws = thr->ts.ws;
    *istart = ws->start + from * ws->incr;
    *iend = to == ws->n ? ws->end : ws->start + to * ws->incr;
    return true;
}

static bool start_l(long start, long end, long incr, long sched, long chunk, bool ordered,
                    uintptr_t *reductions, void **mem, long *istart, long *iend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_enter(thr, (u64)start, (u64)end, (u64)incr,
                          spool__omp_count_l(start, end, incr), sched, (u64)chunk, ordered,
                          reductions, mem);
    return istart == NULL || next_l(istart, iend);
}

static bool start_u(bool up, u64 start, u64 end, u64 incr, long sched, u64 chunk, bool ordered,
                    uintptr_t *reductions, void **mem, u64 *istart, u64 *iend)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_enter(thr, start, end, incr, spool__omp_count_u(up, start, end, incr), sched,
                          chunk, ordered, reductions, mem);
    return istart == NULL || next_u(istart, iend);
}

#define RUNTIME SPOOL_OMP_SCHED_RUNTIME
#define STATIC SPOOL_OMP_SCHED_STATIC
#define DYNAMIC SPOOL_OMP_SCHED_DYNAMIC
#define GUIDED SPOOL_OMP_SCHED_GUIDED

/* A schedule's start and next, both types. */
#define LOOP(kind, sched, ordered)                                                                 \
    SPOOL_OMP_API bool GOMP_loop_##kind##_start(long s, long e, long i, long c, long *is,         \
                                                long *ie)                                         \
    {                                                                                              \
        return start_l(s, e, i, sched, c, ordered, NULL, NULL, is, ie);                           \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_##kind##_next(long *is, long *ie)                                \
    {                                                                                              \
        return next_l(is, ie);                                                                     \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_start(bool up, u64 s, u64 e, u64 i, u64 c, u64 *is, \
                                                    u64 *ie)                                      \
    {                                                                                              \
        return start_u(up, s, e, i, sched, c, ordered, NULL, NULL, is, ie);                       \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_next(u64 *is, u64 *ie)                              \
    {                                                                                              \
        return next_u(is, ie);                                                                     \
    }

/* The same for a runtime schedule (no chunk argument). */
#define LOOP_RT(kind, ordered)                                                                     \
    SPOOL_OMP_API bool GOMP_loop_##kind##_start(long s, long e, long i, long *is, long *ie)       \
    {                                                                                              \
        return start_l(s, e, i, RUNTIME, 0, ordered, NULL, NULL, is, ie);                         \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_##kind##_next(long *is, long *ie)                                \
    {                                                                                              \
        return next_l(is, ie);                                                                     \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_start(bool up, u64 s, u64 e, u64 i, u64 *is,        \
                                                    u64 *ie)                                      \
    {                                                                                              \
        return start_u(up, s, e, i, RUNTIME, 0, ordered, NULL, NULL, is, ie);                     \
    }                                                                                              \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_next(u64 *is, u64 *ie)                              \
    {                                                                                              \
        return next_u(is, ie);                                                                     \
    }

/* nonmonotonic schedules are the monotonic ones here: a chunk is handed
 * out in order, which both allow. */
LOOP(static, STATIC, false)
LOOP(dynamic, DYNAMIC, false)
LOOP(guided, GUIDED, false)
LOOP(nonmonotonic_dynamic, DYNAMIC, false)
LOOP(nonmonotonic_guided, GUIDED, false)
LOOP(ordered_static, STATIC, true)
LOOP(ordered_dynamic, DYNAMIC, true)
LOOP(ordered_guided, GUIDED, true)
LOOP_RT(runtime, false)
LOOP_RT(nonmonotonic_runtime, false)
LOOP_RT(maybe_nonmonotonic_runtime, false)
LOOP_RT(ordered_runtime, true)

SPOOL_OMP_API bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                                   long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    return start_l(start, end, incr, sched, chunk, false, reductions, mem, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
                                           long chunk, long *istart, long *iend,
                                           uintptr_t *reductions, void **mem)
{
    return start_l(start, end, incr, sched, chunk, true, reductions, mem, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_start(bool up, u64 start, u64 end, u64 incr, long sched,
                                       u64 chunk, u64 *istart, u64 *iend, uintptr_t *reductions,
                                       void **mem)
{
    return start_u(up, start, end, incr, sched, chunk, false, reductions, mem, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_ordered_start(bool up, u64 start, u64 end, u64 incr, long sched,
                                               u64 chunk, u64 *istart, u64 *iend,
                                               uintptr_t *reductions, void **mem)
{
    return start_u(up, start, end, incr, sched, chunk, true, reductions, mem, istart, iend);
}

/* ---- the loop's end ------------------------------------------------------------------ */

void spool__omp_loop_leave(spool__omp_thread_t *thr)
{
    spool__omp_ws_t *ws = thr->ts.ws;
    if (ws != NULL && ws->ordered && thr->ts.ticket >= 0)
        spool__omp_ordered_pass(thr);
    spool__omp_ws_leave(thr);
}

SPOOL_OMP_API void GOMP_loop_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_leave(thr);
    if (thr->ts.team != NULL)
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

SPOOL_OMP_API bool GOMP_loop_end_cancel(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_leave(thr);
    return thr->ts.team != NULL && spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

SPOOL_OMP_API void GOMP_loop_end_nowait(void)
{
    spool__omp_loop_leave(spool__omp_thread());
}

/* ---- combined parallel loops ----------------------------------------------------------- */

typedef struct ploop {
    long start, end, incr, chunk;
    int sched;
} ploop_t;

static void ploop_ws0(spool__omp_ws_t *ws, void *arg, unsigned n)
{
    const ploop_t *p = arg;
    u64 chunk = (u64)p->chunk;
    int kind = spool__omp_sched_resolve(p->sched, &chunk);
    spool__omp_loop_init(ws, (u64)p->start, (u64)p->end, (u64)p->incr,
                         spool__omp_count_l(p->start, p->end, p->incr), kind, chunk, n);
}

static void ploop(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                  long incr, int sched, long chunk, unsigned flags, bool whole)
{
    ploop_t p = {start, end, incr, chunk, sched};
    spool__omp_team_start(fn, data, num_threads, flags, ploop_ws0, &p);
    if (!whole)
        return;
    fn(data);
    spool__omp_team_end();
}

#define PLOOP(kind, sched)                                                                         \
    SPOOL_OMP_API void GOMP_parallel_loop_##kind(void (*fn)(void *), void *data, unsigned nt,     \
                                                 long s, long e, long i, long c, unsigned flags)  \
    {                                                                                              \
        ploop(fn, data, nt, s, e, i, sched, c, flags, true);                                      \
    }
#define PLOOP_RT(kind)                                                                             \
    SPOOL_OMP_API void GOMP_parallel_loop_##kind(void (*fn)(void *), void *data, unsigned nt,     \
                                                 long s, long e, long i, unsigned flags)          \
    {                                                                                              \
        ploop(fn, data, nt, s, e, i, RUNTIME, 0, flags, true);                                    \
    }
#define PLOOP_START(kind, sched)                                                                   \
    SPOOL_OMP_API void GOMP_parallel_loop_##kind##_start(void (*fn)(void *), void *data,          \
                                                         unsigned nt, long s, long e, long i,     \
                                                         long c)                                  \
    {                                                                                              \
        ploop(fn, data, nt, s, e, i, sched, c, 0, false);                                         \
    }

PLOOP(static, STATIC)
PLOOP(dynamic, DYNAMIC)
PLOOP(guided, GUIDED)
PLOOP(nonmonotonic_dynamic, DYNAMIC)
PLOOP(nonmonotonic_guided, GUIDED)
PLOOP_RT(runtime)
PLOOP_RT(nonmonotonic_runtime)
PLOOP_RT(maybe_nonmonotonic_runtime)
PLOOP_START(static, STATIC)
PLOOP_START(dynamic, DYNAMIC)
PLOOP_START(guided, GUIDED)

SPOOL_OMP_API void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned nt,
                                                    long s, long e, long i)
{
    ploop(fn, data, nt, s, e, i, RUNTIME, 0, 0, false);
}
