/* The __kmpc_ door's loops (omp.md, "The __kmpc_ door"): static schedules
 * computed in place, as libomp splits them (no work share, as gcc's static
 * loops take none), and every other schedule a work share of loop.c's,
 * its chunks handed out in the loop's inclusive bounds. */
#include "env.h"
#include "kmp_abi.h"
#include "loop.h"
#include "team.h"
#include "work.h"

typedef unsigned long long u64;
typedef long long i64;

/* clang's schedule kinds (libomp's sched_type). */
enum {
    KMP_STATIC_CHUNKED = 33,
    KMP_STATIC = 34,
    KMP_DYNAMIC_CHUNKED = 35,
    KMP_GUIDED_CHUNKED = 36,
    KMP_RUNTIME = 37,
    KMP_AUTO = 38,
    KMP_TRAPEZOIDAL = 39,
    KMP_STATIC_GREEDY = 40,
    KMP_STATIC_BALANCED = 41,
    KMP_GUIDED_ITERATIVE = 42,
    KMP_GUIDED_ANALYTICAL = 43,
    KMP_STATIC_STEAL = 44,
    KMP_STATIC_BALANCED_CHUNKED = 45,
    KMP_GUIDED_SIMD = 46,
    KMP_RUNTIME_SIMD = 47,
    KMP_ORD_LOWER = 64,   /* + 1 .. 8: the ordered ones, 32 above their kind */
    KMP_DIST_CHUNKED = 91,
    KMP_DIST_STATIC = 92,
    KMP_NM_LOWER = 160,   /* + 1 ..: the nomerge ones, 128 above their kind */
    KMP_MODIFIERS = (1 << 29) | (1 << 30) /* monotonic, nonmonotonic */
};

/* ---- static schedules --------------------------------------------------------------------- */

/* Thread tid of nth takes its part of a loop of trip iterations from
 * *lower by incr (a type's values, in 64 bits), as libomp's static
 * schedules do: one balanced block each, or chunks dealt round-robin. */
static void static_split(int32_t sched, unsigned nth, unsigned tid, u64 trip, u64 *lower,
                         u64 *upper, i64 *stride, i64 incr, i64 chunk, int32_t *plast)
{
    int32_t last = 0;
    if (trip == 0) {
        *stride = incr; /* the bounds stay empty */
    } else if (nth <= 1) {
        last = 1;
        *stride = (i64)(trip * (u64)incr);
    } else if (sched == KMP_STATIC_BALANCED_CHUNKED) {
        /* simd:static: one balanced block each, rounded up as libomp
         * rounds it (a multiple of the chunk where it is a power of two,
         * as a simd width is; never below the balanced block). */
        u64 c = chunk < 1 ? 1 : (u64)chunk;
        u64 b = (trip / nth + (trip % nth != 0) + c - 1) & ~(c - 1);
        *stride = (i64)(trip * (u64)incr);
        if (b * tid >= trip) {
            *lower = *upper + (u64)incr; /* empty */
        } else {
            *lower += b * tid * (u64)incr;
            *upper = *lower + ((trip - b * tid > b ? b : trip - b * tid) - 1) * (u64)incr;
        }
        last = tid == (trip - 1) / b;
    } else if (sched == KMP_STATIC_CHUNKED || sched == KMP_DIST_CHUNKED) {
        u64 c = chunk < 1 ? 1 : (u64)chunk;
        u64 span = c * (u64)incr;
        *stride = (i64)(span * nth);
        *lower += span * tid;
        *upper = *lower + span - (u64)incr;
        last = tid == ((trip - 1) / c) % nth;
    } else if (trip < nth) {
        if (tid < trip)
            *upper = *lower = *lower + tid * (u64)incr;
        else
            *lower = *upper + (u64)incr;
        last = tid == trip - 1;
        *stride = (i64)(trip * (u64)incr);
    } else {
        u64 small = trip / nth, extras = trip % nth;
        *lower += (u64)incr * (tid * small + (tid < extras ? tid : extras));
        *upper = *lower + small * (u64)incr - (tid < extras ? 0 : (u64)incr);
        last = tid == nth - 1;
        *stride = (i64)(trip * (u64)incr);
    }
    if (plast != NULL)
        *plast = last;
}

/* The loop's team and the calling thread's place in it: the threads of its
 * region, or for distribute the teams of its teams construct. */
static unsigned static_place(int32_t sched, unsigned *tid)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (sched == KMP_DIST_CHUNKED || sched == KMP_DIST_STATIC) {
        *tid = thr->ts.team_num;
        return thr->ts.num_teams > 0 ? thr->ts.num_teams : 1;
    }
    *tid = thr->ts.id;
    return thr->ts.team != NULL ? thr->ts.team->nthreads : 1;
}

/* clang's static kinds of a loop over threads (distribute's apart). */
static bool static_kind(int32_t sched)
{
    return sched == KMP_STATIC_CHUNKED || sched == KMP_STATIC || sched == KMP_STATIC_GREEDY ||
           sched == KMP_STATIC_BALANCED || sched == KMP_STATIC_BALANCED_CHUNKED;
}

static void check_static(int32_t sched, i64 incr)
{
    if (incr == 0)
        spool__omp_fatal("__kmpc_for_static_init: a loop with increment 0");
    if (!static_kind(sched) && sched != KMP_DIST_CHUNKED && sched != KMP_DIST_STATIC)
        spool__omp_fatal("__kmpc_for_static_init: schedule kind %d is not a static one", sched);
}

/* The trip count of [lower, upper] by incr in type T (UT its unsigned
 * twin): 0 if empty. */
#define TRIP(T, UT, lower, upper, incr)                                                            \
    ((incr) > 0 ? ((lower) > (upper) ? 0 : (u64)((UT)((upper) - (lower)) / (UT)(incr)) + 1)       \
                : ((lower) < (upper) ? 0 : (u64)((UT)((lower) - (upper)) / (UT)(-(incr))) + 1))

#define STATIC_INIT(sfx, T, UT, ST)                                                                \
    SPOOL_OMP_API void __kmpc_for_static_init_##sfx(spool__kmp_ident_t *loc, int32_t gtid,        \
                                                    int32_t sched, int32_t *plast, T *plower,     \
                                                    T *pupper, ST *pstride, ST incr, ST chunk)    \
    {                                                                                              \
        (void)loc;                                                                                 \
        (void)gtid;                                                                                \
        check_static(sched, (i64)incr);                                                            \
        unsigned tid, nth = static_place(sched, &tid);                                             \
        u64 lower = (u64)(i64)*plower, upper = (u64)(i64)*pupper;                                  \
        i64 stride;                                                                                \
        static_split(sched, nth, tid, TRIP(T, UT, *plower, *pupper, incr), &lower, &upper,        \
                     &stride, (i64)incr, (i64)chunk, plast);                                       \
        *plower = (T)lower;                                                                        \
        *pupper = (T)upper;                                                                        \
        *pstride = (ST)stride;                                                                     \
    }

STATIC_INIT(4, int32_t, uint32_t, int32_t)
STATIC_INIT(4u, uint32_t, uint32_t, int32_t)
STATIC_INIT(8, int64_t, uint64_t, int64_t)
STATIC_INIT(8u, uint64_t, uint64_t, int64_t)

SPOOL_OMP_API void __kmpc_for_static_fini(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

/* distribute parallel for: the team's part of the loop (distribute's
 * static schedule), its last iteration in *pupperd, then the thread's
 * part of that (sched). */
#define DIST_INIT(sfx, T, UT, ST)                                                                  \
    SPOOL_OMP_API void __kmpc_dist_for_static_init_##sfx(                                          \
        spool__kmp_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast, T *plower,          \
        T *pupper, T *pupperd, ST *pstride, ST incr, ST chunk)                                     \
    {                                                                                              \
        int32_t team_last;                                                                         \
        ST team_stride;                                                                            \
        __kmpc_for_static_init_##sfx(loc, gtid, KMP_DIST_STATIC, &team_last, plower, pupper,      \
                                     &team_stride, incr, 0);                                       \
        *pupperd = *pupper;                                                                        \
        __kmpc_for_static_init_##sfx(loc, gtid, sched, plast, plower, pupper, pstride, incr,      \
                                     chunk);                                                       \
        if (plast != NULL)                                                                         \
            *plast = *plast && team_last;                                                          \
    }

DIST_INIT(4, int32_t, uint32_t, int32_t)
DIST_INIT(4u, uint32_t, uint32_t, int32_t)
DIST_INIT(8, int64_t, uint64_t, int64_t)
DIST_INIT(8u, uint64_t, uint64_t, int64_t)

/* ---- every other schedule: a work share ------------------------------------------------------ */

/* clang's schedule as loop.c's (GOMP_loop_start's sched), whether the loop
 * is ordered, and whether it is static in one block per thread. */
static long dispatch_sched(int32_t sched, bool *ordered, bool *blocks)
{
    sched &= ~KMP_MODIFIERS;
    if (sched > KMP_NM_LOWER)
        sched -= KMP_NM_LOWER - 32;
    *ordered = sched > KMP_ORD_LOWER && sched < KMP_ORD_LOWER + 9;
    if (*ordered)
        sched -= 32;
    *blocks = sched == KMP_STATIC || sched == KMP_STATIC_GREEDY || sched == KMP_STATIC_BALANCED;
    if (sched == KMP_STATIC_BALANCED_CHUNKED)
        return SPOOL_OMP_SCHED_STATIC | SPOOL_OMP_SCHED_SIMD;
    if (static_kind(sched))
        return SPOOL_OMP_SCHED_STATIC;
    switch (sched) {
    case KMP_DYNAMIC_CHUNKED:
    case KMP_STATIC_STEAL:
        return SPOOL_OMP_SCHED_DYNAMIC;
    case KMP_GUIDED_CHUNKED:
    case KMP_TRAPEZOIDAL:
    case KMP_GUIDED_ITERATIVE:
    case KMP_GUIDED_ANALYTICAL:
        return SPOOL_OMP_SCHED_GUIDED;
    case KMP_GUIDED_SIMD:
        return SPOOL_OMP_SCHED_GUIDED | SPOOL_OMP_SCHED_SIMD;
    case KMP_RUNTIME:
        return SPOOL_OMP_SCHED_RUNTIME;
    case KMP_RUNTIME_SIMD:
        return SPOOL_OMP_SCHED_RUNTIME | SPOOL_OMP_SCHED_SIMD;
    case KMP_AUTO:
        return SPOOL_OMP_SCHED_AUTO;
    default:
        spool__omp_fatal("__kmpc_dispatch_init: unknown schedule kind %d", sched);
    }
}

static void dispatch_init(int32_t sched, u64 lb, u64 trip, i64 st, i64 chunk)
{
    if (st == 0)
        spool__omp_fatal("__kmpc_dispatch_init: a loop with increment 0");
    bool ordered, blocks;
    long kind = dispatch_sched(sched, &ordered, &blocks);
    if (blocks)
        chunk = 0; /* whatever the chunk argument says */
    spool__omp_loop_enter(spool__omp_thread(), lb, lb + trip * (u64)st, (u64)st, trip, kind,
                          chunk < 0 ? 0 : (u64)chunk, ordered, NULL, NULL);
}

/* The next chunk as [*lb, *ub] by *st; 0 once there is none (then the
 * thread is done with the loop). */
static int32_t dispatch_next(int32_t *plast, u64 *lb, u64 *ub, i64 *st)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    u64 from, to;
    if (!spool__omp_loop_next(thr, &from, &to)) {
        spool__omp_loop_leave(thr);
        return 0;
    }
    const spool__omp_ws_t *ws = thr->ts.ws;
    *lb = ws->start + from * ws->incr;
    *ub = ws->start + (to - 1) * ws->incr;
    *st = (i64)ws->incr;
    if (plast != NULL)
        *plast = to == ws->n;
    return 1;
}

#define DISPATCH(sfx, T, UT, ST)                                                                   \
    SPOOL_OMP_API void __kmpc_dispatch_init_##sfx(spool__kmp_ident_t *loc, int32_t gtid,          \
                                                  int32_t sched, T lb, T ub, ST st, ST chunk)     \
    {                                                                                              \
        (void)loc;                                                                                 \
        (void)gtid;                                                                                \
        dispatch_init(sched, (u64)(i64)lb, st == 0 ? 0 : TRIP(T, UT, lb, ub, st), (i64)st,       \
                      (i64)chunk);                                                                 \
    }                                                                                              \
    SPOOL_OMP_API int __kmpc_dispatch_next_##sfx(spool__kmp_ident_t *loc, int32_t gtid,           \
                                                 int32_t *plast, T *plb, T *pub, ST *pst)         \
    {                                                                                              \
        (void)loc;                                                                                 \
        (void)gtid;                                                                                \
        u64 lb, ub;                                                                                \
        i64 st;                                                                                    \
        if (!dispatch_next(plast, &lb, &ub, &st))                                                  \
            return 0;                                                                              \
        *plb = (T)lb;                                                                              \
        *pub = (T)ub;                                                                              \
        if (pst != NULL)                                                                           \
            *pst = (ST)st;                                                                         \
        return 1;                                                                                  \
    }                                                                                              \
    /* An ordered loop's iteration is done: its turn passes on with its          \
     * chunk's (loop.c), at the thread's next chunk. */                                            \
    SPOOL_OMP_API void __kmpc_dispatch_fini_##sfx(spool__kmp_ident_t *loc, int32_t gtid)          \
    {                                                                                              \
        (void)loc;                                                                                 \
        (void)gtid;                                                                                \
    }

DISPATCH(4, int32_t, uint32_t, int32_t)
DISPATCH(4u, uint32_t, uint32_t, int32_t)
DISPATCH(8, int64_t, uint64_t, int64_t)
DISPATCH(8u, uint64_t, uint64_t, int64_t)

/* distribute parallel for with a dynamic schedule: the team's part of the
 * loop (distribute's static schedule; *plast: whether it has the last
 * iteration), then a work share over that part. */
#define DIST_DISPATCH(sfx, T, UT, ST)                                                              \
    SPOOL_OMP_API void __kmpc_dist_dispatch_init_##sfx(spool__kmp_ident_t *loc, int32_t gtid,     \
                                                       int32_t sched, int32_t *plast, T lb, T ub, \
                                                       ST st, ST chunk)                           \
    {                                                                                              \
        ST stride;                                                                                 \
        __kmpc_for_static_init_##sfx(loc, gtid, KMP_DIST_STATIC, plast, &lb, &ub, &stride, st, 0); \
        __kmpc_dispatch_init_##sfx(loc, gtid, sched, lb, ub, st, chunk);                           \
    }

DIST_DISPATCH(4, int32_t, uint32_t, int32_t)
DIST_DISPATCH(4u, uint32_t, uint32_t, int32_t)
DIST_DISPATCH(8, int64_t, uint64_t, int64_t)
DIST_DISPATCH(8u, uint64_t, uint64_t, int64_t)
