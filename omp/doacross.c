/* Doacross loops (ordered(n) with depend(sink) and depend(source); omp.md,
 * "Loops"): the worksharing loop runs over the outermost dimension; the
 * iterations of one outermost index run in order on one thread, so a
 * word per outermost index, the flattened inner position posted last plus
 * one, says which of its iterations are done. */
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>

#include "gomp_abi.h"
#include "omp_impl.h"

typedef unsigned long long u64;

/* The most outermost iterations a doacross loop may have (a word each). */
#define MAX_OUTER (1ull << 27)

/* The first thread sets up the words (counts: iteration counts, outermost
 * first). */
static void doacross_init(spool__omp_ws_t *ws, unsigned ncounts, const u64 *counts)
{
    if (ncounts == 0 || ncounts > 1 + sizeof ws->doacross_inner / sizeof ws->doacross_inner[0])
        spool__omp_fatal("a doacross loop of %u dimensions is not supported", ncounts);
    if (counts[0] > MAX_OUTER)
        spool__omp_fatal("a doacross loop of %llu outermost iterations is too large (at most %llu)",
                         counts[0], (u64)MAX_OUTER);
    ws->doacross_dims = ncounts;
    for (unsigned i = 1; i < ncounts; i++)
        ws->doacross_inner[i - 1] = counts[i];
    ws->doacross = calloc(counts[0] > 0 ? counts[0] : 1, sizeof *ws->doacross);
    if (ws->doacross == NULL)
        spool__omp_fatal("out of memory for a doacross loop of %llu iterations", counts[0]);
}

/* The flattened inner position of iteration v, or ULLONG_MAX if v is
 * outside the iteration space (a sink there waits for nothing). */
static u64 flatten(const spool__omp_ws_t *ws, const u64 *v)
{
    if (v[0] >= ws->n)
        return ULLONG_MAX;
    u64 flat = 0;
    for (unsigned i = 1; i < ws->doacross_dims; i++) {
        u64 c = ws->doacross_inner[i - 1];
        if (v[i] >= c)
            return ULLONG_MAX;
        flat = flat * c + v[i];
    }
    return flat;
}

static bool start(unsigned ncounts, const u64 *counts, long sched, u64 chunk, u64 *from, u64 *to)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    thr->ts.static_trip = 0;
    thr->ts.ticket = -1;
    if (spool__omp_ws_enter(thr)) {
        spool__omp_ws_t *ws = thr->ts.ws;
        int kind = spool__omp_sched_resolve((int)sched, &chunk);
        spool__omp_loop_init(ws, 0, counts[0], 1, counts[0], kind, chunk,
                             thr->ts.team != NULL ? thr->ts.team->nthreads : 1);
        doacross_init(ws, ncounts, counts);
        spool__omp_ws_ready(thr);
    }
    return from == NULL || spool__omp_loop_next(thr, from, to);
}

static bool start_l(unsigned ncounts, long *counts, long sched, long chunk, long *istart,
                    long *iend)
{
    u64 c[1 + sizeof ((spool__omp_ws_t *)0)->doacross_inner / sizeof(u64)];
    for (unsigned i = 0; i < ncounts && i < sizeof c / sizeof c[0]; i++)
        c[i] = counts[i] > 0 ? (u64)counts[i] : 0;
    u64 from, to;
    if (!start(ncounts, c, sched, (u64)chunk, istart != NULL ? &from : NULL, &to))
        return false;
    if (istart != NULL) {
        *istart = (long)from;
        *iend = (long)to;
    }
    return true;
}

static bool start_u(unsigned ncounts, u64 *counts, long sched, u64 chunk, u64 *istart, u64 *iend)
{
    return start(ncounts, counts, sched, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_doacross_static_start(unsigned n, long *counts, long chunk,
                                                   long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_STATIC, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_doacross_dynamic_start(unsigned n, long *counts, long chunk,
                                                    long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_DYNAMIC, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_doacross_guided_start(unsigned n, long *counts, long chunk,
                                                   long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_GUIDED, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_doacross_runtime_start(unsigned n, long *counts, long *istart,
                                                    long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_RUNTIME, 0, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_doacross_start(unsigned n, long *counts, long sched, long chunk,
                                            long *istart, long *iend, uintptr_t *reductions,
                                            void **mem)
{
    if (reductions != NULL || mem != NULL)
        spool__omp_fatal("GOMP_loop_doacross_start: task reductions or lastprivate(conditional) "
                         "on a doacross loop are not implemented");
    return start_l(n, counts, sched, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_static_start(unsigned n, u64 *counts, u64 chunk,
                                                       u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_STATIC, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_dynamic_start(unsigned n, u64 *counts, u64 chunk,
                                                        u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_DYNAMIC, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_guided_start(unsigned n, u64 *counts, u64 chunk,
                                                       u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_GUIDED, chunk, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned n, u64 *counts, u64 *istart,
                                                        u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_RUNTIME, 0, istart, iend);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_start(unsigned n, u64 *counts, long sched, u64 chunk,
                                                u64 *istart, u64 *iend, uintptr_t *reductions,
                                                void **mem)
{
    if (reductions != NULL || mem != NULL)
        spool__omp_fatal("GOMP_loop_ull_doacross_start: task reductions or "
                         "lastprivate(conditional) on a doacross loop are not implemented");
    return start_u(n, counts, sched, chunk, istart, iend);
}

/* ---- post and wait ------------------------------------------------------------------- */

static spool__omp_ws_t *doacross_ws(const char *who)
{
    spool__omp_ws_t *ws = spool__omp_thread()->ts.ws;
    if (ws == NULL || ws->doacross == NULL)
        spool__omp_fatal("%s outside a doacross loop", who);
    return ws;
}

static void post(spool__omp_ws_t *ws, const u64 *v)
{
    u64 flat = flatten(ws, v);
    if (flat == ULLONG_MAX)
        return;
    /* Release pairs with the acquire loads in wait(): the iteration's
     * work before its depend(source) is visible to its sinks. */
    atomic_store_explicit(&ws->doacross[v[0]], flat + 1, memory_order_release);
}

static void wait(spool__omp_ws_t *ws, const u64 *v)
{
    u64 flat = flatten(ws, v);
    if (flat == ULLONG_MAX)
        return;
    unsigned spins = 0;
    /* Acquire pairs with the release store in post(). */
    while (atomic_load_explicit(&ws->doacross[v[0]], memory_order_acquire) <= flat)
        if (++spins < 1000)
            spool__omp_relax();
        else
            sched_yield();
}

SPOOL_OMP_API void GOMP_doacross_post(long *counts)
{
    spool__omp_ws_t *ws = doacross_ws("GOMP_doacross_post");
    u64 v[1 + sizeof ws->doacross_inner / sizeof ws->doacross_inner[0]] = {0};
    for (unsigned i = 0; i < ws->doacross_dims; i++)
        v[i] = (u64)counts[i];
    post(ws, v);
}

SPOOL_OMP_API void GOMP_doacross_ull_post(u64 *counts)
{
    post(doacross_ws("GOMP_doacross_ull_post"), counts);
}

SPOOL_OMP_API void GOMP_doacross_wait(long first, ...)
{
    spool__omp_ws_t *ws = doacross_ws("GOMP_doacross_wait");
    u64 v[1 + sizeof ws->doacross_inner / sizeof ws->doacross_inner[0]];
    va_list ap;
    va_start(ap, first);
    v[0] = (u64)first;
    for (unsigned i = 1; i < ws->doacross_dims; i++)
        v[i] = (u64)va_arg(ap, long);
    va_end(ap);
    wait(ws, v);
}

SPOOL_OMP_API void GOMP_doacross_ull_wait(u64 first, ...)
{
    spool__omp_ws_t *ws = doacross_ws("GOMP_doacross_ull_wait");
    u64 v[1 + sizeof ws->doacross_inner / sizeof ws->doacross_inner[0]];
    va_list ap;
    va_start(ap, first);
    v[0] = first;
    for (unsigned i = 1; i < ws->doacross_dims; i++)
        v[i] = va_arg(ap, u64);
    va_end(ap);
    wait(ws, v);
}
