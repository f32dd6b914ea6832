/* Worksharing loops (omp.md, "Loops"): every schedule in a loop's logical
 * iteration space, 0 .. n-1, so that long and unsigned long long loops,
 * counting up or down, share one implementation.  A chunk [from, to) is
 * handed to the compiler's code as start + from * incr .. start + to *
 * incr (modulo 2^64), the loop's own end for the last one. */
#include <limits.h>
#include <sched.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "loop.h"
#include "team.h"
#include "wait.h"
#include "work.h"

typedef unsigned long long u64;

/* The logical count of a loop from start to end (exclusive) by incr;
 * up: incr counts up (else it is the two's complement of a step down). */
static u64 iterations(bool up, u64 start, u64 end, u64 incr)
{
    u64 span = up ? end - start : start - end;
    u64 step = up ? incr : 0 - incr;
    if (step == 0)
        spool__omp_fatal("a worksharing loop with a step of 0");
    return span / step + (span % step != 0);
}

u64 spool__omp_count_l(long start, long end, long incr)
{
    if (incr > 0 ? start >= end : start <= end)
        return 0;
    return iterations(incr > 0, (u64)start, (u64)end, (u64)incr);
}

u64 spool__omp_count_u(bool up, u64 start, u64 end, u64 incr)
{
    if (up ? start >= end : start <= end)
        return 0;
    return iterations(up, start, end, incr);
}

void spool__omp_loop_init(spool__omp_ws_t *ws, u64 start, u64 end, u64 incr, u64 n, int sched,
                          u64 chunk, unsigned nthreads)
{
    ws->start = start;
    ws->end = end;
    ws->incr = incr;
    ws->n = n;
    ws->sched = sched;
    ws->simd = 0;
    ws->ordered = false;
    if (sched != SPOOL_OMP_SCHED_STATIC && chunk == 0)
        chunk = 1;
    ws->chunk = chunk;
    /* A fetch-and-add per chunk may overshoot n by a chunk per thread, and
     * one more: where that could wrap, chunks are taken by CAS. */
    u64 slack = ((u64)nthreads + 1) * chunk;
    ws->fast = chunk <= ULLONG_MAX / ((u64)nthreads + 1) && n <= ULLONG_MAX - slack;
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->turn, 0, memory_order_relaxed);
}

int spool__omp_sched_resolve(int sched, u64 *chunk)
{
    int kind = sched & ~SPOOL_OMP_SCHED_MONOTONIC;
    if (kind == SPOOL_OMP_SCHED_RUNTIME) {
        const spool__omp_icv_t *icv = spool__omp_icv();
        kind = icv->run_sched & ~SPOOL_OMP_SCHED_MONOTONIC;
        *chunk = (u64)icv->run_chunk;
    }
    if (kind == SPOOL_OMP_SCHED_AUTO) {
        kind = SPOOL_OMP_SCHED_STATIC;
        *chunk = 0;
    }
    if (kind < SPOOL_OMP_SCHED_STATIC || kind > SPOOL_OMP_SCHED_GUIDED)
        spool__omp_fatal("a worksharing loop of unknown schedule kind %d", kind);
    return kind;
}

/* ---- the schedules -------------------------------------------------------------- */

static bool static_next(spool__omp_thread_t *thr, spool__omp_ws_t *ws, u64 *from, u64 *to)
{
    u64 nthreads = thr->ts.team != NULL ? thr->ts.team->nthreads : 1, i = thr->ts.id;
    if (thr->ts.static_trip < 0)
        return false;
    if (ws->chunk == 0) {
        /* One chunk per thread, the first n % nthreads one longer: the
         * split gcc's own static code makes. */
        if (thr->ts.static_trip > 0)
            return false;
        thr->ts.static_trip = -1;
        if (ws->simd != 0) {
            /* libomp's balanced blocks, rounded up as it rounds them
             * (to a multiple of a width that is a power of two). */
            u64 b = (ws->n / nthreads + (ws->n % nthreads != 0) + ws->simd - 1) & ~(ws->simd - 1);
            *from = b * i < ws->n ? b * i : ws->n;
            *to = ws->n - *from > b ? *from + b : ws->n;
            return *to > *from;
        }
        u64 q = ws->n / nthreads, t = ws->n % nthreads;
        if (i < t) {
            q++;
            t = 0;
        }
        *from = q * i + t;
        *to = *from + q;
        return q > 0;
    }
    /* Chunks dealt round-robin: trip k gives chunk k * nthreads + i. */
    u64 k = (u64)thr->ts.static_trip * nthreads + i;
    if (k >= (ws->n + ws->chunk - 1) / ws->chunk || ws->n == 0) {
        thr->ts.static_trip = -1;
        return false;
    }
    *from = k * ws->chunk;
    *to = ws->n - *from > ws->chunk ? *from + ws->chunk : ws->n;
    thr->ts.static_trip++;
    return true;
}

static bool dynamic_next(spool__omp_ws_t *ws, u64 *from, u64 *to)
{
    u64 n = ws->n, chunk = ws->chunk, start;
    if (ws->fast) {
        /* Relaxed: the counter hands out ranges, it publishes nothing
         * (the construct's fields were published by its ready flag). */
        start = atomic_fetch_add_explicit(&ws->next, chunk, memory_order_relaxed);
        if (start >= n)
            return false;
    } else {
        start = atomic_load_explicit(&ws->next, memory_order_relaxed);
        do {
            if (start >= n)
                return false;
            /* Relaxed: as above. */
        } while (!atomic_compare_exchange_weak_explicit(
            &ws->next, &start, n - start > chunk ? start + chunk : n, memory_order_relaxed,
            memory_order_relaxed));
    }
    *from = start;
    *to = n - start > chunk ? start + chunk : n;
    return true;
}

static bool guided_next(spool__omp_ws_t *ws, u64 nthreads, u64 *from, u64 *to)
{
    u64 n = ws->n, start = atomic_load_explicit(&ws->next, memory_order_relaxed), end;
    do {
        if (start >= n)
            return false;
        /* Half a thread's share of what is left, never below the chunk:
         * a whole share leaves the first thread half of an uneven loop's
         * work when its expensive iterations come first. */
        u64 left = n - start, parts = 2 * nthreads, q = left / parts + (left % parts != 0);
        if (q < ws->chunk)
            q = ws->chunk;
        if (ws->simd != 0)
            q = (q + ws->simd - 1) / ws->simd * ws->simd;
        end = q < left ? start + q : n;
        /* Relaxed: as in dynamic_next. */
    } while (!atomic_compare_exchange_weak_explicit(&ws->next, &start, end, memory_order_relaxed,
                                                    memory_order_relaxed));
    *from = start;
    *to = end;
    return true;
}

bool spool__omp_loop_next(spool__omp_thread_t *thr, u64 *from, u64 *to)
{
    spool__omp_ws_t *ws = thr->ts.ws;
    if (ws == NULL)
        spool__omp_fatal("a worksharing loop's next chunk asked outside any loop");
    if (ws->ordered && thr->ts.ticket >= 0)
        spool__omp_ordered_pass(thr);
    bool more;
    switch (ws->sched) {
    case SPOOL_OMP_SCHED_STATIC:
        more = static_next(thr, ws, from, to);
        break;
    case SPOOL_OMP_SCHED_DYNAMIC:
        more = dynamic_next(ws, from, to);
        break;
    default:
        more = guided_next(ws, thr->ts.team != NULL ? thr->ts.team->nthreads : 1, from, to);
        break;
    }
    if (more && ws->ordered) {
        thr->ts.ticket = (long long)*from;
        thr->ts.chunk_end = *to;
    }
    return more;
}

/* ---- ordered ---------------------------------------------------------------------- */

typedef struct turn_wait {
    spool__omp_ws_t *ws;
    u64 ticket;
} turn_wait_t;

static bool my_turn(const void *arg)
{
    const turn_wait_t *t = arg;
    /* Seq-cst (an acquire): pairs with the seq-cst store of the chunk
     * before (its ordered regions' effects are visible; W1 with its wake). */
    return atomic_load_explicit(&t->ws->turn, memory_order_seq_cst) == t->ticket;
}

/* The calling thread waits until its chunk's turn comes (it sleeps). */
static void wait_turn(spool__omp_thread_t *thr)
{
    turn_wait_t t = {thr->ts.ws, (u64)thr->ts.ticket};
    if (!my_turn(&t))
        spool__omp_wait(thr->ts.team, thr->ts.id, &t.ws->turn, my_turn, &t);
}

void spool__omp_ordered_pass(spool__omp_thread_t *thr)
{
    spool__omp_ws_t *ws = thr->ts.ws;
    wait_turn(thr);
    /* Seq-cst (a release): pairs with the loads in my_turn (W1: the wake
     * after it). */
    atomic_store_explicit(&ws->turn, thr->ts.chunk_end, memory_order_seq_cst);
    if (thr->ts.team != NULL)
        spool__omp_wake(thr->ts.team, thr->ts.id, &ws->turn);
    thr->ts.ticket = -1;
}

SPOOL_OMP_API void GOMP_ordered_start(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_ws_t *ws = thr->ts.ws;
    if (ws == NULL || !ws->ordered || thr->ts.ticket < 0)
        return; /* a team of one, or no loop: nothing runs before */
    wait_turn(thr);
}

SPOOL_OMP_API void GOMP_ordered_end(void)
{
    /* The turn passes when the chunk is done (spool__omp_loop_next, the
     * loop's end): a chunk's iterations run in order on its thread. */
}
