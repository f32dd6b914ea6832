/* Work shares (omp.md, "Work shares"): the ring of a team's worksharing
 * constructs, and the constructs that are only that: single (with
 * copyprivate), sections, scope. */
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "loop.h"
#include "task.h"
#include "team.h"
#include "wait.h"
#include "work.h"

void spool__omp_ws_reset(spool__omp_team_t *team)
{
    /* A slot still at its reset gen was not entered since (an entry
     * always changes gen, and gen never comes back): the rest of it is as
     * reset too, and left alone, so that its line stays valid in the
     * members' caches (team.c).  Nobody else touches the ring at a
     * region's start. */
    for (unsigned i = 0; i < SPOOL_OMP_RING; i++) {
        spool__omp_ws_t *ws = &team->ring[i];
        if (atomic_load_explicit(&ws->gen, memory_order_relaxed) == 2ul * i)
            continue;
        atomic_store_explicit(&ws->gen, 2ul * i, memory_order_relaxed);
        atomic_store_explicit(&ws->ready, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
        ws->mem = NULL;
        ws->doacross = NULL;
    }
}

/* The thread's own work share, outside any region (an orphaned
 * construct): a team of one. */
static spool__omp_ws_t *solo_ws(spool__omp_thread_t *thr)
{
    if (thr->solo == NULL) {
        thr->solo = aligned_alloc(SPOOL_OMP_LINE, sizeof *thr->solo);
        if (thr->solo == NULL)
            spool__omp_fatal("out of memory for a worksharing construct");
        memset(thr->solo, 0, sizeof *thr->solo);
    }
    return thr->solo;
}

typedef struct slot_wait {
    spool__omp_ws_t *ws;
    unsigned long d;
} slot_wait_t;

static bool slot_free(const void *arg)
{
    const slot_wait_t *w = arg;
    /* Seq-cst (an acquire): pairs with the last leaver's store of gen in
     * spool__omp_ws_leave (W1, with its wake). */
    return atomic_load_explicit(&w->ws->gen, memory_order_seq_cst) / 2 >= w->d;
}

bool spool__omp_ws_enter(spool__omp_thread_t *thr)
{
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL) {
        thr->ts.ws = solo_ws(thr);
        thr->ts.ws->mem = NULL;
        thr->ts.ws->doacross = NULL;
        return true;
    }
    unsigned long d = thr->ts.ws_next++;
    spool__omp_ws_t *ws = &team->ring[d % SPOOL_OMP_RING];
    thr->ts.ws = ws;
    /* Acquire pairs with the store of gen by the last thread to leave the
     * slot's previous construct (spool__omp_ws_leave): its fields are free
     * to reuse. */
    unsigned long g = atomic_load_explicit(&ws->gen, memory_order_acquire);
    if (g / 2 < d) {
        /* Still the construct SPOOL_OMP_RING before: the team's slowest
         * thread is that far behind (nowait), for as long as it likes. */
        slot_wait_t w = {ws, d};
        spool__omp_wait(team, thr->ts.id, &ws->gen, slot_free, &w);
        g = atomic_load_explicit(&ws->gen, memory_order_acquire);
    }
    while (g == 2 * d) {
        /* Acquire on both: as above. */
        if (atomic_compare_exchange_weak_explicit(&ws->gen, &g, 2 * d + 1, memory_order_acquire,
                                                  memory_order_acquire))
            return true;
    }
    /* Acquire pairs with the release store in spool__omp_ws_ready: the
     * construct is set up.  A short wait: its first thread is setting it
     * up. */
    for (unsigned long i = 0; atomic_load_explicit(&ws->ready, memory_order_acquire) != d + 1; i++)
        spool__spin_brief(i);
    return false;
}

void spool__omp_ws_ready(spool__omp_thread_t *thr)
{
    if (thr->ts.team == NULL)
        return;
    /* Release pairs with the acquire loads in spool__omp_ws_enter. */
    atomic_store_explicit(&thr->ts.ws->ready, thr->ts.ws_next, memory_order_release);
}

static void ws_free(spool__omp_ws_t *ws)
{
    free(ws->mem);
    ws->mem = NULL;
    free((void *)ws->doacross);
    ws->doacross = NULL;
}

void spool__omp_ws_leave(spool__omp_thread_t *thr)
{
    spool__omp_ws_t *ws = thr->ts.ws;
    spool__omp_team_t *team = thr->ts.team;
    thr->ts.ws = NULL;
    thr->ts.ticket = -1;
    if (ws == NULL)
        return;
    if (team == NULL) {
        ws_free(ws);
        return;
    }
    /* Acq_rel: the leaves form a release sequence; the last one acquires
     * every thread's use of the slot before it frees it. */
    if (atomic_fetch_add_explicit(&ws->left, 1, memory_order_acq_rel) + 1 != team->nthreads)
        return;
    ws_free(ws);
    atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
    unsigned long d = atomic_load_explicit(&ws->gen, memory_order_relaxed) / 2;
    /* Seq-cst (a release): pairs with the loads of gen in
     * spool__omp_ws_enter and slot_free (W1, with the wake). */
    atomic_store_explicit(&ws->gen, 2 * (d + SPOOL_OMP_RING), memory_order_seq_cst);
    spool__omp_wake(team, thr->ts.id, &ws->gen);
}

spool__omp_ws_t *spool__omp_ws_aside(spool__omp_thread_t *thr,
                                     void (*setup)(spool__omp_ws_t *ws, void *arg), void *arg)
{
    spool__omp_ws_t *current = thr->ts.ws;
    if (spool__omp_ws_enter(thr)) {
        setup(thr->ts.ws, arg);
        spool__omp_ws_ready(thr);
    }
    spool__omp_ws_t *ws = thr->ts.ws;
    thr->ts.ws = current;
    return ws;
}

void spool__omp_ws_leave_aside(spool__omp_thread_t *thr, spool__omp_ws_t *ws)
{
    spool__omp_ws_t *current = thr->ts.ws;
    long long ticket = thr->ts.ticket;
    thr->ts.ws = ws;
    spool__omp_ws_leave(thr);
    thr->ts.ws = current;
    thr->ts.ticket = ticket;
}

void *spool__omp_ws_mem(spool__omp_ws_t *ws, size_t size)
{
    ws->mem = calloc(1, size > 0 ? size : 1);
    if (ws->mem == NULL)
        spool__omp_fatal("out of memory for a worksharing construct's %zu bytes", size);
    return ws->mem;
}

/* ---- single ---------------------------------------------------------------------- */

SPOOL_OMP_API bool GOMP_single_start(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL)
        return true;
    /* Every thread meets the team's singles in the same order: the first
     * to move the team's count from the one before wins.  Relaxed: the
     * single's effects reach the others through the barrier after it. */
    unsigned long mine = thr->ts.single_count++;
    return atomic_compare_exchange_strong_explicit(&team->single_count, &mine, mine + 1,
                                                   memory_order_relaxed, memory_order_relaxed);
}

SPOOL_OMP_API void *GOMP_single_copy_start(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (spool__omp_ws_enter(thr)) {
        spool__omp_ws_ready(thr);
        return NULL;
    }
    /* The executing thread stores its data, then waits here too. */
    spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
    void *data = thr->ts.ws->copyprivate;
    spool__omp_ws_leave(thr);
    return data;
}

SPOOL_OMP_API void GOMP_single_copy_end(void *data)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL) {
        thr->ts.ws->copyprivate = data;
        /* The barrier publishes it; the others copy, then the compiler's
         * own barrier keeps data alive until they have. */
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
    }
    spool__omp_ws_leave(thr);
}

/* ---- sections -------------------------------------------------------------------- */

/* Sections are a dynamic loop over 1 .. count, one section a chunk. */
static void sections_init(spool__omp_ws_t *ws, unsigned count, unsigned nthreads)
{
    spool__omp_loop_init(ws, 1, (unsigned long long)count + 1, 1, count,
                         SPOOL_OMP_SCHED_DYNAMIC, 1, nthreads);
}

static unsigned sections_next(spool__omp_thread_t *thr)
{
    unsigned long long from, to;
    return spool__omp_loop_next(thr, &from, &to) ? (unsigned)(from + 1) : 0;
}

static unsigned team_size(const spool__omp_thread_t *thr)
{
    return thr->ts.team != NULL ? thr->ts.team->nthreads : 1;
}

SPOOL_OMP_API unsigned GOMP_sections_start(unsigned count)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (spool__omp_ws_enter(thr)) {
        sections_init(thr->ts.ws, count, team_size(thr));
        spool__omp_ws_ready(thr);
    }
    return sections_next(thr);
}

SPOOL_OMP_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (spool__omp_ws_enter_reducing(thr, reductions)) {
        sections_init(thr->ts.ws, count, team_size(thr));
        if (mem != NULL)
            spool__omp_ws_mem(thr->ts.ws, (size_t)(uintptr_t)*mem);
        spool__omp_ws_ready(thr);
    }
    if (mem != NULL)
        *mem = thr->ts.ws->mem;
    return sections_next(thr);
}

SPOOL_OMP_API unsigned GOMP_sections_next(void)
{
    return sections_next(spool__omp_thread());
}

SPOOL_OMP_API void GOMP_sections_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    spool__omp_ws_leave(thr);
    if (team != NULL)
        spool__omp_barrier_wait(team, thr->ts.id);
}

SPOOL_OMP_API bool GOMP_sections_end_cancel(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    spool__omp_ws_leave(thr);
    return team != NULL && spool__omp_barrier_wait(team, thr->ts.id);
}

SPOOL_OMP_API void GOMP_sections_end_nowait(void)
{
    spool__omp_ws_leave(spool__omp_thread());
}

typedef struct sections_arg {
    unsigned count;
} sections_arg_t;

static void sections_ws0(spool__omp_ws_t *ws, void *arg, unsigned n)
{
    sections_init(ws, ((sections_arg_t *)arg)->count, n);
}

SPOOL_OMP_API void GOMP_parallel_sections_start(void (*fn)(void *), void *data,
                                                unsigned num_threads, unsigned count)
{
    sections_arg_t a = {count};
    spool__omp_team_start(fn, data, num_threads, 0, sections_ws0, &a);
}

SPOOL_OMP_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                          unsigned count, unsigned flags)
{
    sections_arg_t a = {count};
    spool__omp_team_start(fn, data, num_threads, flags, sections_ws0, &a);
    fn(data);
    spool__omp_team_end();
}

/* ---- scope (OpenMP 5.1) ---------------------------------------------------------- */

SPOOL_OMP_API void GOMP_scope_start(uintptr_t *reductions)
{
    /* gcc calls it for a scope with task reductions only: a worksharing
     * construct for choosing the thread that registers them (the others
     * share its chunks), left at once as a nowait one would be; the end
     * (GOMP_workshare_task_reduction_unregister, then the barrier) is
     * gcc's. */
    spool__omp_thread_t *thr = spool__omp_thread();
    if (spool__omp_ws_enter_reducing(thr, reductions))
        spool__omp_ws_ready(thr);
    spool__omp_ws_leave(thr);
}
