/* Doacross loops (ordered(n) with depend(sink) and depend(source); omp.md,
 * "Loops"): the worksharing loop runs over the outermost dimension; the
 * iterations of one outermost index run in order on one thread, so a
 * word per outermost index, the flattened inner position posted last plus
 * one, says which of its iterations are done. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "loop.h"
#include "task.h"
#include "team.h"
#include "wait.h"
#include "work.h"

typedef unsigned long long u64;

/* The most outermost iterations a doacross loop may have (a word each). */
#define MAX_OUTER (1ull << 27)

/* The first thread sets up the words (counts: iteration counts, outermost
 * first), and the inner counts after them. */
static void doacross_init(spool__omp_ws_t *ws, unsigned ncounts, const u64 *counts)
{
    if (ncounts == 0)
        spool__omp_fatal("a doacross loop of no dimensions");
    if (counts[0] > MAX_OUTER)
        spool__omp_fatal("a doacross loop of %llu outermost iterations is too large (at most %llu)",
                         counts[0], (u64)MAX_OUTER);
    /* Positions are flattened into a word: a loop whose inner iterations
     * overflow it could never end. */
    u64 inner = 1;
    for (unsigned i = 1; i < ncounts; i++)
        if (counts[i] != 0 && __builtin_mul_overflow(inner, counts[i], &inner))
            spool__omp_fatal("a doacross loop of more than 2^64 inner iterations");
    u64 words = counts[0] > 0 ? counts[0] : 1;
    ws->doacross = calloc(words + ncounts, sizeof(u64));
    if (ws->doacross == NULL)
        spool__omp_fatal("out of memory for a doacross loop of %llu iterations", counts[0]);
    ws->doacross_inner = (u64 *)(void *)(ws->doacross + words);
    ws->doacross_dims = ncounts;
    for (unsigned i = 1; i < ncounts; i++)
        ws->doacross_inner[i - 1] = counts[i];
}

/* An iteration's indices, read one by one: from an array, or from a
 * variable argument list after the first. */
typedef struct indices {
    const u64 *array;
    const long *larray;
    va_list *ap;
    bool ull;
    u64 first;
} indices_t;

static u64 index_at(indices_t *x, unsigned i)
{
    if (x->array != NULL)
        return x->array[i];
    if (x->larray != NULL)
        return (u64)x->larray[i];
    if (i == 0)
        return x->first;
    return x->ull ? va_arg(*x->ap, u64) : (u64)va_arg(*x->ap, long);
}

/* The outermost index and the flattened inner position of an iteration,
 * or false if it is outside the iteration space (a sink there waits for
 * nothing). */
static bool flatten(const spool__omp_ws_t *ws, indices_t *x, u64 *outer, u64 *flat)
{
    bool inside = true;
    *outer = index_at(x, 0);
    if (*outer >= ws->n)
        inside = false;
    *flat = 0;
    /* Every index is read, also past one outside, so that a va_list is
     * read in full. */
    for (unsigned i = 1; i < ws->doacross_dims; i++) {
        u64 v = index_at(x, i), c = ws->doacross_inner[i - 1];
        if (v >= c)
            inside = false;
        else
            *flat = *flat * c + v;
    }
    return inside;
}

static bool start(unsigned ncounts, const u64 *counts, long sched, u64 chunk, u64 *from, u64 *to,
                  uintptr_t *reductions, void **mem)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    thr->ts.static_trip = 0;
    thr->ts.ticket = -1;
    if (spool__omp_ws_enter_reducing(thr, reductions)) {
        spool__omp_ws_t *ws = thr->ts.ws;
        int kind = spool__omp_sched_resolve((int)sched, &chunk);
        spool__omp_loop_init(ws, 0, counts[0], 1, counts[0], kind, chunk,
                             thr->ts.team != NULL ? thr->ts.team->nthreads : 1);
        doacross_init(ws, ncounts, counts);
        if (mem != NULL)
            spool__omp_ws_mem(ws, (size_t)(uintptr_t)*mem);
        spool__omp_ws_ready(thr);
    }
    if (mem != NULL)
        *mem = thr->ts.ws->mem;
    return from == NULL || spool__omp_loop_next(thr, from, to);
}

static bool start_l(unsigned ncounts, long *counts, long sched, long chunk, long *istart,
                    long *iend, uintptr_t *reductions, void **mem)
{
    u64 *c = malloc((ncounts > 0 ? ncounts : 1) * sizeof *c);
    if (c == NULL)
        spool__omp_fatal("out of memory for a doacross loop of %u dimensions", ncounts);
    for (unsigned i = 0; i < ncounts; i++)
        c[i] = counts[i] > 0 ? (u64)counts[i] : 0;
    u64 from, to;
    bool more = start(ncounts, c, sched, (u64)chunk, istart != NULL ? &from : NULL, &to,
                      reductions, mem);
    free(c);
    if (!more)
        return false;
    if (istart != NULL) {
        *istart = (long)from;
        *iend = (long)to;
    }
    return true;
}

static bool start_u(unsigned ncounts, u64 *counts, long sched, u64 chunk, u64 *istart, u64 *iend,
                    uintptr_t *reductions, void **mem)
{
    return start(ncounts, counts, sched, chunk, istart, iend, reductions, mem);
}

SPOOL_OMP_API bool GOMP_loop_doacross_static_start(unsigned n, long *counts, long chunk,
                                                   long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_STATIC, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_doacross_dynamic_start(unsigned n, long *counts, long chunk,
                                                    long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_doacross_guided_start(unsigned n, long *counts, long chunk,
                                                   long *istart, long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_GUIDED, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_doacross_runtime_start(unsigned n, long *counts, long *istart,
                                                    long *iend)
{
    return start_l(n, counts, SPOOL_OMP_SCHED_RUNTIME, 0, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_doacross_start(unsigned n, long *counts, long sched, long chunk,
                                            long *istart, long *iend, uintptr_t *reductions,
                                            void **mem)
{
    return start_l(n, counts, sched, chunk, istart, iend, reductions, mem);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_static_start(unsigned n, u64 *counts, u64 chunk,
                                                       u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_STATIC, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_dynamic_start(unsigned n, u64 *counts, u64 chunk,
                                                        u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_guided_start(unsigned n, u64 *counts, u64 chunk,
                                                       u64 *istart, u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_GUIDED, chunk, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned n, u64 *counts, u64 *istart,
                                                        u64 *iend)
{
    return start_u(n, counts, SPOOL_OMP_SCHED_RUNTIME, 0, istart, iend, NULL, NULL);
}

SPOOL_OMP_API bool GOMP_loop_ull_doacross_start(unsigned n, u64 *counts, long sched, u64 chunk,
                                                u64 *istart, u64 *iend, uintptr_t *reductions,
                                                void **mem)
{
    return start_u(n, counts, sched, chunk, istart, iend, reductions, mem);
}

/* ---- post and wait ------------------------------------------------------------------- */

static spool__omp_ws_t *doacross_ws(const char *who)
{
    spool__omp_ws_t *ws = spool__omp_thread()->ts.ws;
    if (ws == NULL || ws->doacross == NULL)
        spool__omp_fatal("%s outside a doacross loop", who);
    return ws;
}

static void post(spool__omp_ws_t *ws, indices_t *x)
{
    u64 outer, flat;
    if (!flatten(ws, x, &outer, &flat))
        return;
    /* Seq-cst (a release): pairs with the loads in posted(): the
     * iteration's work before its depend(source) is visible to its sinks
     * (W1, with the wake). */
    atomic_store_explicit(&ws->doacross[outer], flat + 1, memory_order_seq_cst);
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL)
        spool__omp_wake(thr->ts.team, thr->ts.id, &ws->doacross[outer]);
}

typedef struct sink {
    _Atomic u64 *word;
    u64 flat;
} sink_t;

static bool posted(const void *arg)
{
    const sink_t *s = arg;
    /* Seq-cst (an acquire): pairs with the store in post(). */
    return atomic_load_explicit(s->word, memory_order_seq_cst) > s->flat;
}

static void wait(spool__omp_ws_t *ws, indices_t *x)
{
    u64 outer, flat;
    if (!flatten(ws, x, &outer, &flat))
        return;
    sink_t s = {&ws->doacross[outer], flat};
    if (!posted(&s)) {
        spool__omp_thread_t *thr = spool__omp_thread();
        spool__omp_wait(thr->ts.team, thr->ts.id, s.word, posted, &s);
    }
}

SPOOL_OMP_API void GOMP_doacross_post(long *counts)
{
    indices_t x = {.larray = counts};
    post(doacross_ws("GOMP_doacross_post"), &x);
}

SPOOL_OMP_API void GOMP_doacross_ull_post(u64 *counts)
{
    indices_t x = {.array = counts};
    post(doacross_ws("GOMP_doacross_ull_post"), &x);
}

SPOOL_OMP_API void GOMP_doacross_wait(long first, ...)
{
    spool__omp_ws_t *ws = doacross_ws("GOMP_doacross_wait");
    va_list ap;
    va_start(ap, first);
    indices_t x = {.ap = &ap, .first = (u64)first};
    wait(ws, &x);
    va_end(ap);
}

SPOOL_OMP_API void GOMP_doacross_ull_wait(u64 first, ...)
{
    spool__omp_ws_t *ws = doacross_ws("GOMP_doacross_ull_wait");
    va_list ap;
    va_start(ap, first);
    indices_t x = {.ap = &ap, .ull = true, .first = first};
    wait(ws, &x);
    va_end(ap);
}
