/* Teams: a parallel region's threads, thread 0 the encountering thread and
 * the others workers lent by its pool (omp.md, "Teams"). */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "barrier.h"
#include "env.h"
#include "gomp_abi.h"
#include "reserve.h"
#include "task.h"
#include "team.h"
#include "work.h"

_Thread_local spool__omp_thread_t spool__omp_tls __attribute__((tls_model("initial-exec")));

/* Threads in teams, counted against OMP_THREAD_LIMIT (only while it is
 * set): the initial thread and each team's others. */
static _Atomic unsigned long threads_busy = 1;

static pthread_key_t teams_key;
static pthread_once_t teams_key_once = PTHREAD_ONCE_INIT;

/* Threads outside a team that may still touch it (omp_fulfill_event's
 * wakes, after the completion that lets the team end): a leader that
 * exits frees its teams only when none is left. */
static _Atomic unsigned long foreign;

void spool__omp_foreign_enter(void)
{
    /* Relaxed: the completion that follows, which the leader's region end
     * acquires, carries it to the exiting leader's load below. */
    atomic_fetch_add_explicit(&foreign, 1, memory_order_relaxed);
}

void spool__omp_foreign_leave(void)
{
    /* Release pairs with the exiting leader's acquire load. */
    atomic_fetch_sub_explicit(&foreign, 1, memory_order_release);
}

static void free_teams(void *arg)
{
    spool__omp_thread_t *thr = arg;
    /* Acquire: pairs with the release decrements above. */
    while (thr->free_teams != NULL && atomic_load_explicit(&foreign, memory_order_acquire) != 0)
        sched_yield();
    while (thr->free_teams != NULL) {
        spool__omp_team_t *t = thr->free_teams;
        thr->free_teams = t->next;
        spool__omp_reserve_release(t->reserves, t->capacity);
        free(t->reserves);
        free(t->members);
        free(t->lends);
        spool__omp_tasking_free(t->tasking);
        free(t);
    }
}

static void make_teams_key(void)
{
    if (pthread_key_create(&teams_key, free_teams) != 0)
        spool__omp_fatal("cannot create a thread-specific key");
}

void spool__omp_thread_setup(spool__omp_thread_t *thr)
{
    spool__omp_env_init();
    thr->initial.icv = spool__omp_env.icv;
    memset(&thr->ts, 0, sizeof thr->ts);
    thr->ts.ticket = -1;
    thr->task = &thr->initial;
    thr->ready = true;
}

void spool__omp_park_wait(spool__park_t *p)
{
    /* A lent worker's park runs its pool's jobs (scheduler/lend.h): they run
     * as outside any OpenMP region (level 0, in the thread's initial
     * task), not inside the region this thread waits in. */
    spool__omp_thread_t *thr = &spool__omp_tls;
    spool__omp_ts_t ts = thr->ts;
    spool__omp_task_t *task = thr->task;
    bool under = thr->under_region;
    thr->ts = (spool__omp_ts_t){.ticket = -1};
    thr->task = &thr->initial;
    thr->under_region = false;
    spool__park_wait(p);
    thr->ts = ts;
    thr->task = task;
    thr->under_region = under;
}

/* ---- the team's memory --------------------------------------------------------- */

/* A team for n threads: one the calling thread led before, or a new one. */
static spool__omp_team_t *team_get(spool__omp_thread_t *thr, unsigned n)
{
    for (spool__omp_team_t **p = &thr->free_teams; *p != NULL; p = &(*p)->next)
        if ((*p)->capacity >= n) {
            spool__omp_team_t *t = *p;
            *p = t->next;
            return t;
        }
    unsigned cap = n < 4 ? 4 : n;
    spool__omp_team_t *t = aligned_alloc(SPOOL_OMP_LINE, sizeof *t);
    spool__omp_member_t *m =
        aligned_alloc(SPOOL_OMP_LINE, (size_t)cap * sizeof(spool__omp_member_t));
    spool__lend_t *l = calloc(cap, sizeof(spool__lend_t));
    spool__omp_reserve_t **r = calloc(cap, sizeof *r);
    if (t == NULL || m == NULL || l == NULL || r == NULL)
        spool__omp_fatal("out of memory for a team of %u threads", n);
    memset(t, 0, sizeof *t);
    memset(m, 0, (size_t)cap * sizeof *m);
    t->capacity = cap;
    t->members = m;
    t->lends = l;
    t->reserves = r;
    t->tasking = spool__omp_tasking_new(cap);
    spool__omp_barrier_init(&t->bar);
    pthread_once(&teams_key_once, make_teams_key);
    pthread_setspecific(teams_key, thr);
    return t;
}

static void team_put(spool__omp_thread_t *thr, spool__omp_team_t *t)
{
    t->next = thr->free_teams;
    thr->free_teams = t;
}

/* ---- how many threads ---------------------------------------------------------- */

/* How many threads a region opened here gets at most; those beyond the
 * first are counted against OMP_THREAD_LIMIT (*counted) while it is set. */
static unsigned resolve(spool__omp_thread_t *thr, unsigned specified, unsigned *counted)
{
    const spool__omp_icv_t *icv = &thr->task->icv;
    *counted = 0;
    if (specified == 1 || thr->ts.active_level >= icv->max_active_levels)
        return 1;
    unsigned long n = specified != 0 ? specified : icv->nthreads;
    if (n > spool__omp_env.max_threads)
        n = spool__omp_env.max_threads;
    if (icv->thread_limit != UINT_MAX && n > 1) {
        /* Relaxed: a count, no data rides on it. */
        unsigned long busy = atomic_load_explicit(&threads_busy, memory_order_relaxed), take;
        do {
            take = icv->thread_limit + 1 > busy ? icv->thread_limit + 1 - busy : 1;
            if (take > n)
                take = n;
        } while (!atomic_compare_exchange_weak_explicit(&threads_busy, &busy, busy + take - 1,
                                                        memory_order_relaxed,
                                                        memory_order_relaxed));
        n = take;
        *counted = (unsigned)take - 1;
    }
    return (unsigned)n;
}

/* ---- members -------------------------------------------------------------------- */

/* The state of thread id of team as it starts its implicit task. */
static void enter_team(spool__omp_thread_t *thr, spool__omp_team_t *team, unsigned id,
                       unsigned long ws_next, spool__omp_ws_t *ws)
{
    thr->ts = (spool__omp_ts_t){.team = team,
                                .id = id,
                                .level = team->level,
                                .active_level = team->active_level,
                                .ws_next = ws_next,
                                .ws = ws,
                                .single_count = 0,
                                .static_trip = 0,
                                .ticket = -1,
                                .team_num = team->team_num,
                                .num_teams = team->num_teams,
                                .def_allocator = team->def_allocator};
    thr->task = &team->members[id].task;
}

static void member_main(void *arg)
{
    spool__omp_member_t *m = arg;
    spool__omp_team_t *team = m->team;
    /* Acquire pairs with thread 0's release store of go: nthreads and the
     * rest of the team are final. */
    for (unsigned long i = 0; atomic_load_explicit(&team->go, memory_order_acquire) == 0; i++)
        spool__spin_brief(i);
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_ts_t saved = thr->ts;
    spool__omp_task_t *saved_task = thr->task;
    enter_team(thr, team, m->id, team->combined ? 1 : 0, team->combined ? &team->ring[0] : NULL);
    if (__builtin_expect(spool__omp_env.display_affinity, 0))
        spool__omp_affinity_note(thr);
    team->fn(team->data);
    spool__omp_task_region_end(thr);
    thr->ts = saved;
    thr->task = saved_task;
    if (m->lent) {
        spool__lend_return();
        if (spool__omp_spin_count(team->nthreads) != 0)
            spool__lend_linger();
    }
    spool__omp_join_arrive(team);
}

/* ---- the region ------------------------------------------------------------------- */

/* Member id's state as its implicit task starts.  Only what changed is
 * stored: the member's lines, set up alike region after region, stay in
 * the cache of the thread that reads them next (omp.md, "Teams"). */
static void init_member(spool__omp_team_t *team, unsigned id, const spool__omp_icv_t *icv)
{
    spool__omp_member_t *m = &team->members[id];
    SPOOL_OMP_SET(m->team, team);
    SPOOL_OMP_SET(m->id, id);
    /* Member 0's ICVs are thread 0's to read. */
    if (id == 0 || memcmp(&m->task.icv, icv, sizeof *icv) != 0)
        m->task.icv = *icv;
    SPOOL_OMP_SET_RELAXED(&m->parked, 0);
}

unsigned spool__omp_team_start(void (*fn)(void *), void *data, unsigned specified, unsigned flags,
                               void (*ws0)(spool__omp_ws_t *ws, void *arg, unsigned n),
                               void *ws0_arg)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    unsigned counted;
    unsigned nthreads = resolve(thr, specified, &counted);
    spool__omp_team_t *team = team_get(thr, nthreads);
    /* Only what changed is stored, here and in what follows: a region
     * set up as the last one leaves its members' copies of the team's
     * lines valid, and they read them right after their claim. */
    SPOOL_OMP_SET(team->fn, fn);
    SPOOL_OMP_SET(team->data, data);
    team->prev_ts = thr->ts;
    team->prev_task = thr->task;
    SPOOL_OMP_SET(team->team_num, thr->ts.team_num);
    SPOOL_OMP_SET(team->num_teams, thr->ts.num_teams);
    SPOOL_OMP_SET(team->def_allocator, thr->ts.def_allocator);
    SPOOL_OMP_SET(team->level, thr->ts.level + 1);
    atomic_store_explicit(&team->go, 0, memory_order_relaxed);
    SPOOL_OMP_SET_RELAXED(&team->single_count, 0);
    SPOOL_OMP_SET_RELAXED(&team->ws_cancelled, false);
    spool__omp_barrier_init(&team->bar);
    spool__omp_ws_reset(team);
    /* The implicit tasks' ICVs: the encountering task's, nthreads-var from
     * OMP_NUM_THREADS's next level, bind-var from the clause. */
    spool__omp_icv_t icv = thr->task->icv;
    /* A region under the rule for spool jobs passes dyn-var true on to its
     * implicit tasks: what they open stays within the pool too. */
    bool dynamic = spool__omp_dynamic(thr);
    icv.dyn = dynamic;
    if (spool__omp_env.nthreads_list != NULL && team->level < spool__omp_env.nthreads_list_len)
        icv.nthreads = spool__omp_env.nthreads_list[team->level];
    if (icv.bind != 0 && (flags & 7) != 0)
        icv.bind = (int)(flags & 7);
    init_member(team, 0, &icv);
    SPOOL_OMP_SET(team->members[0].lent, false);
    unsigned n = 1;
    if (nthreads > 1) {
        spool_pool_t *pool = spool__omp_pool();
        for (unsigned id = 1; id < nthreads; id++) {
            init_member(team, id, &icv);
            /* Set up once: a record left alike stays in its worker's
             * cache, which reads it right after the claim. */
            if (team->lends[id - 1].arg != &team->members[id])
                spool__lend_init(&team->lends[id - 1], member_main, &team->members[id]);
        }
        if (pool != NULL) {
            /* The same workers region after region where they are idle (a
             * worker leader starts after itself): a static schedule's
             * data stays in their caches. */
            int self = spool_current_thread_index();
            unsigned first = self >= 0 ? (unsigned)self + 1 : 0;
            n += spool__lend(pool, first, nthreads - 1, team->lends);
        }
        /* Members 1 .. n - 1 run on lent workers; reserve threads (below)
         * do not. */
        for (unsigned id = 1; id < nthreads; id++)
            SPOOL_OMP_SET(team->members[id].lent, id < n);
        if (n < nthreads && !dynamic) {
            /* dyn-var false: the team has every thread it asked for, from
             * threads of the library's own where the pool has none idle,
             * each bound to its member slot. */
            for (; n < nthreads; n++)
                if (!spool__omp_reserve_run(&team->reserves[n], member_main, &team->members[n]))
                    spool__omp_fatal("cannot start thread %u of a team of %u (OMP_DYNAMIC=false)",
                                     n, nthreads);
        }
    }
    if (counted > n - 1) {
        /* Relaxed: as in resolve. */
        atomic_fetch_sub_explicit(&threads_busy, counted - (n - 1), memory_order_relaxed);
        counted = n - 1;
    }
    SPOOL_OMP_SET(team->busy_counted, counted);
    SPOOL_OMP_SET(team->nthreads, n);
    SPOOL_OMP_SET(team->active_level, thr->ts.active_level + (n > 1));
    SPOOL_OMP_SET(team->combined, ws0 != NULL);
    if (ws0 != NULL) {
        /* Construct 0 set up before anyone runs (a combined parallel
         * loop or sections): every thread starts inside it. */
        spool__omp_ws_t *ws = &team->ring[0];
        atomic_store_explicit(&ws->gen, 1, memory_order_relaxed);
        ws0(ws, ws0_arg, n);
        atomic_store_explicit(&ws->ready, 1, memory_order_relaxed);
    }
    spool__omp_tasking_start(team);
    spool__omp_reductions_team(team);
    atomic_store_explicit(&team->join, n - 1, memory_order_relaxed);
    /* Release pairs with the members' acquire loads in member_main. */
    atomic_store_explicit(&team->go, 1, memory_order_release);
    enter_team(thr, team, 0, ws0 != NULL ? 1 : 0, ws0 != NULL ? &team->ring[0] : NULL);
    if (__builtin_expect(spool__omp_env.display_affinity, 0))
        spool__omp_affinity_note(thr);
    return n;
}

void spool__omp_team_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL || thr->ts.id != 0)
        spool__omp_fatal("GOMP_parallel_end: not called by thread 0 of a region");
    spool__omp_task_region_end(thr);
    spool__omp_join_wait(team);
    spool__omp_tnode_t *implicit = &team->tasking->implicit[0];
    for (unsigned i = 0; i < team->nthreads; i++, implicit++)
        if (implicit->deps != NULL) {
            spool__omp_deps_free(implicit->deps);
            implicit->deps = NULL;
        }
    if (team->busy_counted != 0)
        atomic_fetch_sub_explicit(&threads_busy, team->busy_counted, memory_order_relaxed);
    thr->ts = team->prev_ts;
    thr->task = team->prev_task;
    team_put(thr, team);
}
