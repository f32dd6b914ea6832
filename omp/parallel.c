/* parallel, barrier and cancel, and the omp_ calls that ask about the
 * calling thread's team and levels (omp.md, "Teams"). */
#include <limits.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "task.h"
#include "team.h"

SPOOL_OMP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                                 unsigned flags)
{
    spool__omp_team_start(fn, data, num_threads, flags, NULL, NULL);
    fn(data);
    spool__omp_team_end();
}

SPOOL_OMP_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    spool__omp_team_start(fn, data, num_threads, 0, NULL, NULL);
}

SPOOL_OMP_API void GOMP_parallel_end(void)
{
    spool__omp_team_end();
}

SPOOL_OMP_API void GOMP_barrier(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL)
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

SPOOL_OMP_API bool GOMP_barrier_cancel(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    return thr->ts.team != NULL && spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}

/* ---- cancellation ------------------------------------------------------------------- */

enum {
    CANCEL_PARALLEL = 1,
    CANCEL_LOOP = 2,
    CANCEL_SECTIONS = 4,
    CANCEL_TASKGROUP = 8
};

SPOOL_OMP_API bool GOMP_cancellation_point(int which)
{
    if (!spool__omp_env.cancellation)
        return false;
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (which & CANCEL_TASKGROUP)
        return spool__omp_taskgroup_cancelled(thr);
    if (team == NULL)
        return false;
    /* Acquire pairs with the canceller's release store. */
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS))
        return atomic_load_explicit(&team->ws_cancelled, memory_order_acquire);
    return atomic_load_explicit(&team->bar.cancelled, memory_order_acquire);
}

SPOOL_OMP_API bool GOMP_cancel(int which, bool do_cancel)
{
    if (!spool__omp_env.cancellation)
        return false;
    if (!do_cancel)
        return GOMP_cancellation_point(which);
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        /* Outside a team only the calling thread's construct is cancelled:
         * it leaves it at once.  Release pairs with the acquire loads in
         * GOMP_cancellation_point. */
        if (team != NULL)
            atomic_store_explicit(&team->ws_cancelled, true, memory_order_release);
        return true;
    }
    if (which & CANCEL_TASKGROUP)
        return spool__omp_taskgroup_cancel(thr);
    if (team != NULL)
        spool__omp_barrier_cancel(team, thr->ts.id);
    return true;
}

/* ---- the team the calling thread is in ------------------------------------------------ */

SPOOL_OMP_API int omp_get_num_threads(void)
{
    spool__omp_team_t *team = spool__omp_thread()->ts.team;
    return team != NULL ? (int)team->nthreads : 1;
}

SPOOL_OMP_API int omp_get_thread_num(void)
{
    return (int)spool__omp_thread()->ts.id;
}

SPOOL_OMP_API int omp_in_parallel(void)
{
    return spool__omp_thread()->ts.active_level > 0;
}

SPOOL_OMP_API int omp_get_level(void)
{
    return (int)spool__omp_thread()->ts.level;
}

SPOOL_OMP_API int omp_get_active_level(void)
{
    return (int)spool__omp_thread()->ts.active_level;
}

/* The team state of the calling thread's ancestor at level, or NULL. */
static const spool__omp_ts_t *ancestor(int level)
{
    const spool__omp_ts_t *ts = &spool__omp_thread()->ts;
    if (level < 0 || (unsigned)level > ts->level)
        return NULL;
    for (unsigned l = ts->level; l > (unsigned)level; l--)
        ts = &ts->team->prev_ts;
    return ts;
}

SPOOL_OMP_API int omp_get_ancestor_thread_num(int level)
{
    const spool__omp_ts_t *ts = ancestor(level);
    return ts != NULL ? (int)ts->id : -1;
}

SPOOL_OMP_API int omp_get_team_size(int level)
{
    const spool__omp_ts_t *ts = ancestor(level);
    if (ts == NULL)
        return -1;
    return ts->team != NULL ? (int)ts->team->nthreads : 1;
}

/* ---- the ICVs of the current task ------------------------------------------------------- */

SPOOL_OMP_API void omp_set_num_threads(int n)
{
    spool__omp_icv()->nthreads = n > 0 ? (unsigned long)n : 1;
}

SPOOL_OMP_API int omp_get_max_threads(void)
{
    unsigned long n = spool__omp_icv()->nthreads;
    return n > INT_MAX ? INT_MAX : (int)n;
}

SPOOL_OMP_API void omp_set_dynamic(int on)
{
    spool__omp_icv()->dyn = on != 0;
}

SPOOL_OMP_API int omp_get_dynamic(void)
{
    return spool__omp_dynamic(spool__omp_thread());
}

SPOOL_OMP_API void omp_set_nested(int on)
{
    spool__omp_icv_t *icv = spool__omp_icv();
    if (on)
        icv->max_active_levels = icv->max_active_levels > 1 ? icv->max_active_levels : 255;
    else if (icv->max_active_levels > 1)
        icv->max_active_levels = 1;
}

SPOOL_OMP_API int omp_get_nested(void)
{
    spool__omp_icv_t *icv = spool__omp_icv();
    return icv->max_active_levels > 1 && icv->max_active_levels > spool__omp_thread()->ts.active_level;
}

SPOOL_OMP_API void omp_set_max_active_levels(int levels)
{
    if (levels >= 0)
        spool__omp_icv()->max_active_levels = levels > 255 ? 255u : (unsigned)levels;
}

SPOOL_OMP_API int omp_get_max_active_levels(void)
{
    return (int)spool__omp_icv()->max_active_levels;
}

SPOOL_OMP_API int omp_get_supported_active_levels(void)
{
    return 255;
}

SPOOL_OMP_API void omp_set_schedule(omp_sched_t kind, int chunk)
{
    int base = (int)kind & ~SPOOL_OMP_SCHED_MONOTONIC;
    if (base < SPOOL_OMP_SCHED_STATIC || base > SPOOL_OMP_SCHED_AUTO)
        return; /* not a schedule: ignored, as libgomp does */
    spool__omp_icv_t *icv = spool__omp_icv();
    if (base == SPOOL_OMP_SCHED_AUTO)
        chunk = 0;
    else if (chunk < 1)
        chunk = base == SPOOL_OMP_SCHED_STATIC ? 0 : 1;
    icv->run_sched = (int)kind;
    icv->run_chunk = chunk;
}

SPOOL_OMP_API void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    const spool__omp_icv_t *icv = spool__omp_icv();
    *kind = (omp_sched_t)icv->run_sched;
    *chunk = icv->run_chunk;
}

SPOOL_OMP_API int omp_get_thread_limit(void)
{
    unsigned limit = spool__omp_icv()->thread_limit;
    return limit > INT_MAX ? INT_MAX : (int)limit;
}

SPOOL_OMP_API omp_proc_bind_t omp_get_proc_bind(void)
{
    return (omp_proc_bind_t)spool__omp_icv()->bind;
}

SPOOL_OMP_API int omp_get_cancellation(void)
{
    spool__omp_env_init();
    return spool__omp_env.cancellation;
}

SPOOL_OMP_API int omp_get_num_procs(void)
{
    spool__omp_env_init();
    return (int)spool__omp_env.cpus;
}
