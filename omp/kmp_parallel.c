/* The __kmpc_ door's regions and the constructs that are one call (omp.md,
 * "The __kmpc_ door"): each maps onto what the GOMP_ entry point of the
 * same construct does. */
#include <stdarg.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "kmp_abi.h"
#include "lock.h"
#include "team.h"
#include "work.h"

/* ---- thread ids ----------------------------------------------------------------------- */

static _Atomic int32_t next_gtid;
_Thread_local int32_t spool__kmp_gtid_tls __attribute__((tls_model("initial-exec"))) = -1;

int32_t spool__kmp_gtid_new(void)
{
    /* Relaxed: an id, which orders nothing. */
    int32_t g = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
    spool__kmp_gtid_tls = g;
    return g;
}

SPOOL_OMP_API int32_t __kmpc_global_thread_num(spool__kmp_ident_t *loc)
{
    (void)loc;
    return spool__kmp_gtid();
}

SPOOL_OMP_API int32_t __kmpc_global_num_threads(spool__kmp_ident_t *loc)
{
    (void)loc;
    /* Relaxed: a count. */
    return atomic_load_explicit(&next_gtid, memory_order_relaxed);
}

SPOOL_OMP_API int32_t __kmpc_bound_thread_num(spool__kmp_ident_t *loc)
{
    (void)loc;
    return omp_get_thread_num();
}

SPOOL_OMP_API int32_t __kmpc_bound_num_threads(spool__kmp_ident_t *loc)
{
    (void)loc;
    return omp_get_num_threads();
}

SPOOL_OMP_API int32_t __kmpc_in_parallel(spool__kmp_ident_t *loc)
{
    (void)loc;
    return omp_in_parallel();
}

SPOOL_OMP_API int32_t __kmpc_ok_to_fork(spool__kmp_ident_t *loc)
{
    (void)loc;
    return 1;
}

SPOOL_OMP_API void __kmpc_begin(spool__kmp_ident_t *loc, int32_t flags)
{
    (void)loc;
    (void)flags;
}

SPOOL_OMP_API void __kmpc_end(spool__kmp_ident_t *loc)
{
    (void)loc;
}

/* ---- regions ---------------------------------------------------------------------------- */

SPOOL_OMP_API void __kmpc_push_num_threads(spool__kmp_ident_t *loc, int32_t gtid,
                                           int32_t num_threads)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread()->kmp_nthreads = num_threads > 0 ? (unsigned)num_threads : 0;
}

SPOOL_OMP_API void __kmpc_push_proc_bind(spool__kmp_ident_t *loc, int32_t gtid, int proc_bind)
{
    (void)loc;
    (void)gtid;
    /* omp_proc_bind_t's values, which GOMP_parallel's flags carry too. */
    spool__omp_thread()->kmp_bind = proc_bind > 0 && proc_bind < 8 ? (unsigned)proc_bind : 0;
}

#define SPOOL_KMP_MAX_ARGS 32

typedef struct fork {
    spool__kmp_micro_t fn;
    int32_t argc;
    void **args;
} fork_t;

/* fn(&gtid, &btid, args...) with argc pointer-sized arguments, each case
 * through fn's own type. */
#define T1 void *
#define T2 T1, void *
#define T3 T2, void *
#define T4 T3, void *
#define T5 T4, void *
#define T6 T5, void *
#define T7 T6, void *
#define T8 T7, void *
#define T9 T8, void *
#define T10 T9, void *
#define T11 T10, void *
#define T12 T11, void *
#define T13 T12, void *
#define T14 T13, void *
#define T15 T14, void *
#define T16 T15, void *
#define T17 T16, void *
#define T18 T17, void *
#define T19 T18, void *
#define T20 T19, void *
#define T21 T20, void *
#define T22 T21, void *
#define T23 T22, void *
#define T24 T23, void *
#define T25 T24, void *
#define T26 T25, void *
#define T27 T26, void *
#define T28 T27, void *
#define T29 T28, void *
#define T30 T29, void *
#define T31 T30, void *
#define T32 T31, void *
#define A1 a[0]
#define A2 A1, a[1]
#define A3 A2, a[2]
#define A4 A3, a[3]
#define A5 A4, a[4]
#define A6 A5, a[5]
#define A7 A6, a[6]
#define A8 A7, a[7]
#define A9 A8, a[8]
#define A10 A9, a[9]
#define A11 A10, a[10]
#define A12 A11, a[11]
#define A13 A12, a[12]
#define A14 A13, a[13]
#define A15 A14, a[14]
#define A16 A15, a[15]
#define A17 A16, a[16]
#define A18 A17, a[17]
#define A19 A18, a[18]
#define A20 A19, a[19]
#define A21 A20, a[20]
#define A22 A21, a[21]
#define A23 A22, a[22]
#define A24 A23, a[23]
#define A25 A24, a[24]
#define A26 A25, a[25]
#define A27 A26, a[26]
#define A28 A27, a[27]
#define A29 A28, a[28]
#define A30 A29, a[29]
#define A31 A30, a[30]
#define A32 A31, a[31]
#define CALL(n)                                                                                    \
    case n:                                                                                        \
        ((void (*)(int32_t *, int32_t *, T##n))fn)(g, b, A##n);                                    \
        return;

static void invoke(spool__kmp_micro_t fn, int32_t *g, int32_t *b, int32_t argc, void **a)
{
    switch (argc) {
    case 0:
        ((void (*)(int32_t *, int32_t *))fn)(g, b);
        return;
        CALL(1)
        CALL(2)
        CALL(3)
        CALL(4)
        CALL(5)
        CALL(6)
        CALL(7)
        CALL(8)
        CALL(9)
        CALL(10)
        CALL(11)
        CALL(12)
        CALL(13)
        CALL(14)
        CALL(15)
        CALL(16)
        CALL(17)
        CALL(18)
        CALL(19)
        CALL(20)
        CALL(21)
        CALL(22)
        CALL(23)
        CALL(24)
        CALL(25)
        CALL(26)
        CALL(27)
        CALL(28)
        CALL(29)
        CALL(30)
        CALL(31)
        CALL(32)
    default: /* fork_args let no other count through */
        __builtin_unreachable();
    }
}

/* A team's thread runs the outlined region. */
static void run_micro(void *data)
{
    const fork_t *f = data;
    int32_t gtid = spool__kmp_gtid();
    int32_t btid = (int32_t)spool__omp_thread()->ts.id;
    invoke(f->fn, &gtid, &btid, f->argc, f->args);
}

/* The clauses pushed for the next region: its num_threads (0: none) and
 * GOMP_parallel's flags; taken, so that they apply to one region. */
static unsigned take_clauses(spool__omp_thread_t *thr, unsigned *flags)
{
    unsigned n = thr->kmp_nthreads;
    *flags = thr->kmp_bind;
    thr->kmp_nthreads = 0;
    thr->kmp_bind = 0;
    return n;
}

/* An outlined region's argc shared arguments, from ap into args (room for
 * SPOOL_KMP_MAX_ARGS); who names the entry point in the error line. */
static void fork_args(const char *who, int32_t argc, va_list ap, void **args)
{
    if (argc < 0 || argc > SPOOL_KMP_MAX_ARGS)
        spool__omp_fatal("%s: a region with %d shared arguments (at most %d)", who, argc,
                         SPOOL_KMP_MAX_ARGS);
    for (int32_t i = 0; i < argc; i++)
        args[i] = va_arg(ap, void *);
}

SPOOL_OMP_API void __kmpc_fork_call(spool__kmp_ident_t *loc, int32_t argc,
                                    spool__kmp_micro_t microtask, ...)
{
    (void)loc;
    void *args[SPOOL_KMP_MAX_ARGS];
    va_list ap;
    va_start(ap, microtask);
    fork_args("__kmpc_fork_call", argc, ap, args);
    va_end(ap);
    fork_t f = {microtask, argc, args};
    unsigned flags;
    unsigned n = take_clauses(spool__omp_thread(), &flags);
    spool__omp_team_start(run_micro, &f, n, flags, NULL, NULL);
    run_micro(&f);
    spool__omp_team_end();
}

/* The teams construct on the host: its teams one after another on this
 * thread, as GOMP_teams_reg runs gcc's; each calls the outlined function
 * as its thread 0. */
SPOOL_OMP_API void __kmpc_push_num_teams(spool__kmp_ident_t *loc, int32_t gtid,
                                         int32_t num_teams, int32_t num_threads)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    thr->kmp_nteams = num_teams > 0 ? (unsigned)num_teams : 0;
    thr->kmp_team_limit = num_threads > 0 ? (unsigned)num_threads : 0;
}

SPOOL_OMP_API void __kmpc_push_num_teams_51(spool__kmp_ident_t *loc, int32_t gtid,
                                            int32_t num_teams_lb, int32_t num_teams_ub,
                                            int32_t num_threads)
{
    (void)num_teams_lb;
    __kmpc_push_num_teams(loc, gtid, num_teams_ub, num_threads);
}

SPOOL_OMP_API void __kmpc_fork_teams(spool__kmp_ident_t *loc, int32_t argc,
                                     spool__kmp_micro_t microtask, ...)
{
    (void)loc;
    void *args[SPOOL_KMP_MAX_ARGS];
    va_list ap;
    va_start(ap, microtask);
    fork_args("__kmpc_fork_teams", argc, ap, args);
    va_end(ap);
    fork_t f = {microtask, argc, args};
    spool__omp_thread_t *thr = spool__omp_thread();
    unsigned nteams = thr->kmp_nteams, limit = thr->kmp_team_limit;
    thr->kmp_nteams = thr->kmp_team_limit = 0;
    GOMP_teams_reg(run_micro, &f, nteams, limit, 0);
}

/* parallel if(false): the compiler runs the region itself between these,
 * in a team of one. */
static void nothing(void *data)
{
    (void)data;
}

SPOOL_OMP_API void __kmpc_serialized_parallel(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    unsigned flags;
    take_clauses(spool__omp_thread(), &flags);
    spool__omp_team_start(nothing, NULL, 1, flags, NULL, NULL);
}

SPOOL_OMP_API void __kmpc_end_serialized_parallel(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    spool__omp_team_end();
}

/* ---- synchronization --------------------------------------------------------------------- */

SPOOL_OMP_API void __kmpc_barrier(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL)
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

SPOOL_OMP_API void __kmpc_flush(spool__kmp_ident_t *loc)
{
    (void)loc;
    /* A seq-cst fence: the flush without a list orders every access; it
     * pairs with the other threads' flushes (this one, or gcc's inline fence) and
     * the seq-cst operations of their constructs. */
    atomic_thread_fence(memory_order_seq_cst);
}

SPOOL_OMP_API int32_t __kmpc_master(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    return spool__omp_thread()->ts.id == 0;
}

SPOOL_OMP_API void __kmpc_end_master(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

SPOOL_OMP_API int32_t __kmpc_masked(spool__kmp_ident_t *loc, int32_t gtid, int32_t filter)
{
    (void)loc;
    (void)gtid;
    return (int32_t)spool__omp_thread()->ts.id == filter;
}

SPOOL_OMP_API void __kmpc_end_masked(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

SPOOL_OMP_API int32_t __kmpc_single(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    return GOMP_single_start();
}

SPOOL_OMP_API void __kmpc_end_single(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

SPOOL_OMP_API void __kmpc_critical(spool__kmp_ident_t *loc, int32_t gtid,
                                   spool__kmp_critical_t *crit)
{
    (void)loc;
    (void)gtid;
    spool__omp_lock_word((_Atomic int *)(void *)crit);
}

SPOOL_OMP_API void __kmpc_critical_with_hint(spool__kmp_ident_t *loc, int32_t gtid,
                                             spool__kmp_critical_t *crit, uint32_t hint)
{
    (void)hint;
    __kmpc_critical(loc, gtid, crit);
}

SPOOL_OMP_API void __kmpc_end_critical(spool__kmp_ident_t *loc, int32_t gtid,
                                       spool__kmp_critical_t *crit)
{
    (void)loc;
    (void)gtid;
    spool__omp_unlock_word((_Atomic int *)(void *)crit);
}

SPOOL_OMP_API void __kmpc_ordered(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_ordered_start();
}

SPOOL_OMP_API void __kmpc_end_ordered(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_ordered_end();
}

/* single copyprivate: the thread that ran the single (didit) hands its
 * list of pointers out through a work share of the team's; every other
 * copies from it with cpy_func(own, its), between two barriers. */
SPOOL_OMP_API void __kmpc_copyprivate(spool__kmp_ident_t *loc, int32_t gtid, size_t cpy_size,
                                      void *cpy_data, void (*cpy_func)(void *, void *),
                                      int32_t didit)
{
    (void)loc;
    (void)gtid;
    (void)cpy_size;
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL)
        return;
    if (spool__omp_ws_enter(thr))
        spool__omp_ws_ready(thr);
    spool__omp_ws_t *ws = thr->ts.ws;
    if (didit)
        ws->copyprivate = cpy_data;
    spool__omp_barrier_wait(team, thr->ts.id);
    if (!didit)
        cpy_func(cpy_data, ws->copyprivate);
    spool__omp_barrier_wait(team, thr->ts.id);
    spool__omp_ws_leave(thr);
}

/* ---- reductions ------------------------------------------------------------------------ */

/* Every reduction takes clang's critical method: 1, and the caller
 * combines its copy into the shared one under lck, which its end drops (a
 * team of one needs no lock). */
static int32_t reduce_begin(spool__kmp_critical_t *lck)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL && thr->ts.team->nthreads > 1)
        spool__omp_lock_word((_Atomic int *)(void *)lck);
    return 1;
}

static void reduce_end(spool__kmp_critical_t *lck, bool barrier)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team != NULL && team->nthreads > 1)
        spool__omp_unlock_word((_Atomic int *)(void *)lck);
    if (barrier && team != NULL)
        spool__omp_barrier_wait(team, thr->ts.id);
}

SPOOL_OMP_API int32_t __kmpc_reduce_nowait(spool__kmp_ident_t *loc, int32_t gtid,
                                           int32_t num_vars, size_t reduce_size,
                                           void *reduce_data,
                                           void (*reduce_func)(void *lhs, void *rhs),
                                           spool__kmp_critical_t *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)reduce_size;
    (void)reduce_data;
    (void)reduce_func;
    return reduce_begin(lck);
}

SPOOL_OMP_API void __kmpc_end_reduce_nowait(spool__kmp_ident_t *loc, int32_t gtid,
                                            spool__kmp_critical_t *lck)
{
    (void)loc;
    (void)gtid;
    reduce_end(lck, false);
}

SPOOL_OMP_API int32_t __kmpc_reduce(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_vars,
                                    size_t reduce_size, void *reduce_data,
                                    void (*reduce_func)(void *lhs, void *rhs),
                                    spool__kmp_critical_t *lck)
{
    /* The same start; only the end differs (a barrier after). */
    return __kmpc_reduce_nowait(loc, gtid, num_vars, reduce_size, reduce_data, reduce_func, lck);
}

SPOOL_OMP_API void __kmpc_end_reduce(spool__kmp_ident_t *loc, int32_t gtid,
                                     spool__kmp_critical_t *lck)
{
    (void)loc;
    (void)gtid;
    reduce_end(lck, true);
}

/* ---- cancellation ------------------------------------------------------------------------ */

/* clang's cancel kinds (parallel 1, loop 2, sections 3, taskgroup 4) as
 * GOMP_cancel's bits. */
static int cancel_which(int32_t kind)
{
    static const int which[] = {0, 1, 2, 4, 8};
    return kind >= 1 && kind <= 4 ? which[kind] : 0;
}

SPOOL_OMP_API int32_t __kmpc_cancel(spool__kmp_ident_t *loc, int32_t gtid, int32_t kind)
{
    (void)loc;
    (void)gtid;
    return GOMP_cancel(cancel_which(kind), true);
}

SPOOL_OMP_API int32_t __kmpc_cancellationpoint(spool__kmp_ident_t *loc, int32_t gtid,
                                               int32_t kind)
{
    (void)loc;
    (void)gtid;
    return GOMP_cancellation_point(cancel_which(kind));
}

SPOOL_OMP_API int32_t __kmpc_cancel_barrier(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    return GOMP_barrier_cancel();
}
