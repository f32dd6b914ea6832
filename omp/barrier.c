/* A team's barrier, and the park every wait of a team's thread sleeps in
 * (omp.md, "Barriers" and "Waits").  The barrier is a state word (arrivals,
 * and the team's implicit tasks with explicit descendants alive) and a
 * generation; the thread whose change leaves every thread arrived and no
 * task (its arrival, or the drop of the last task) starts the next
 * generation.  A waiter runs the team's queued tasks, spins, then parks: a
 * lent worker in its pool's wait loop, an outside thread on a lock latch
 * (scheduler/lend.h).  A waiter registers on what it waits for before it
 * parks and looks once more; whoever makes it ready (the releasing thread,
 * a completion, a thread that passes a turn) and a thread that queues a
 * task look for registered waiters and set the park of each they claim
 * (the seq-cst pairs below). */
#include <limits.h>

#include "barrier.h"
#include "env.h"
#include "task_help.h"
#include "team.h"

void spool__omp_barrier_init(spool__omp_barrier_t *b)
{
    /* Relaxed, and only what changed: at a region's start nobody else
     * touches the barrier, and lines left alike stay in the members'
     * caches (omp.md, "Teams"). */
    SPOOL_OMP_SET_RELAXED(&b->state, 0);
    if ((atomic_load_explicit(&b->gen, memory_order_relaxed) |
         atomic_load_explicit(&b->sleepers, memory_order_relaxed) |
         atomic_load_explicit(&b->idle, memory_order_relaxed) |
         (unsigned)atomic_load_explicit(&b->cancelled, memory_order_relaxed)) != 0) {
        atomic_store_explicit(&b->gen, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sleepers, 0, memory_order_relaxed);
        atomic_store_explicit(&b->idle, 0, memory_order_relaxed);
        atomic_store_explicit(&b->cancelled, false, memory_order_relaxed);
    }
}

unsigned long spool__omp_spin_count(unsigned n)
{
    const spool__omp_env_t *e = &spool__omp_env;
    if (n > e->cpus)
        /* More threads than CPUs: a spinner keeps the CPU from a thread
         * that has work (throttled, as libgomp's). */
        return e->wait_policy > 0 ? 1000 : 0;
    if (e->wait_policy > 0)
        return ULONG_MAX;
    if (e->wait_policy == 0)
        return 0;
    /* Short: the park's own wait spins and yields before it sleeps. */
    return 2000;
}

static bool released(spool__omp_barrier_t *b, unsigned g, memory_order mo)
{
    return atomic_load_explicit(&b->gen, mo) != g || atomic_load_explicit(&b->cancelled, mo);
}

/* A waiter must not park while a task is queued that it may run. */
static bool task_queued(spool__omp_team_t *team, unsigned id, const void *anc)
{
    /* Seq-cst fence, then relaxed loads: see spool__omp_park. */
    atomic_thread_fence(memory_order_seq_cst);
    return (atomic_load_explicit(&team->bar.state, memory_order_relaxed) >> 32) != 0 &&
           spool__omp_task_queued(team, id, anc);
}

/* ---- parking (omp.md, "Waits") ------------------------------------------------------ */

/* Claims member m's registration, and sets its park, if it waits on obj or
 * (obj NULL) in a wait that runs tasks. */
static void claim(spool__omp_member_t *m, const void *obj)
{
    /* Acquire pairs with the waiter's release store of parked: what it
     * waits on, and its park, are set up. */
    if (atomic_load_explicit(&m->parked, memory_order_acquire) == 0)
        return;
    if (obj != NULL ? atomic_load_explicit(&m->wait_obj, memory_order_relaxed) != obj
                    : !atomic_load_explicit(&m->wait_tasks, memory_order_relaxed))
        return;
    /* Acq_rel: acquire as above; of the waiter and its wakers, the one
     * whose exchange reads 1 owns the wake-up. */
    if (atomic_exchange_explicit(&m->parked, 0, memory_order_acq_rel) != 0)
        spool__park_set(&m->park);
}

/* Sets the park of every member of team but self (UINT_MAX: none) that is
 * registered on obj (NULL: in a wait that runs tasks) and not claimed yet. */
static void wake_parked(spool__omp_team_t *team, unsigned self, const void *obj)
{
    for (unsigned i = 0; i < team->nthreads; i++)
        if (i != self)
            claim(&team->members[i], obj);
}

void spool__omp_wake(spool__omp_team_t *team, unsigned self, const void *obj)
{
    /* Seq-cst load after the caller's seq-cst write: pairs with the
     * waiters' seq-cst increment and loads in spool__omp_park (W1: either
     * a waiter sees the write, or we see its count). */
    if (atomic_load_explicit(&team->bar.sleepers, memory_order_seq_cst) != 0)
        wake_parked(team, self, obj);
}

void spool__omp_park(spool__omp_team_t *team, unsigned id, const void *obj, bool tasks,
                     const void *anc, spool__omp_ready_fn ready, const void *arg)
{
    spool__omp_barrier_t *b = &team->bar;
    spool__omp_member_t *m = &team->members[id];
    if (spool__park_init(&m->park) != 0)
        spool__omp_fatal("cannot set up a wait of a team's thread");
    /* Relaxed: published by the release store of parked below. */
    atomic_store_explicit(&m->wait_obj, obj, memory_order_relaxed);
    atomic_store_explicit(&m->wait_anc, anc, memory_order_relaxed);
    atomic_store_explicit(&m->wait_tasks, tasks, memory_order_relaxed);
    /* Release pairs with the acquire loads in claim(): the park is set up
     * before whoever claims this registration sets it (a waker of obj, or
     * a late one of an earlier wait: W3). */
    atomic_store_explicit(&m->parked, 1, memory_order_release);
    /* Seq-cst increment, then seq-cst loads (ready): pairs with a waker's
     * seq-cst write and its seq-cst load of sleepers (spool__omp_wake,
     * release_parked). */
    atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_seq_cst);
    /* Relaxed: a hint for the task makers (task.c, defer_room). */
    bool idle = tasks && anc == NULL;
    if (idle)
        atomic_fetch_add_explicit(&b->idle, 1, memory_order_relaxed);
    /* The queues after a seq-cst fence (task_queued): pairs with the
     * fence in spool__omp_barrier_task_wake (the store-buffer pair: either
     * we see the queued task, or its pusher sees our count). */
    if (!(ready(arg) || (tasks && task_queued(team, id, anc))) ||
        /* Ready, or a task queued meanwhile: unless a waker claimed us
         * (then it sets our park, and we must wait for that), we are done.
         * Acq_rel: as in claim(). */
        atomic_exchange_explicit(&m->parked, 0, memory_order_acq_rel) == 0)
        spool__omp_park_wait(&m->park);
    /* Relaxed: counts that only make the wakers look, and a hint. */
    if (idle)
        atomic_fetch_sub_explicit(&b->idle, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
    spool__park_destroy(&m->park);
}

/* ---- the barrier --------------------------------------------------------------------- */

/* After a new generation or the cancel: wake the parked waiters.  Seq-cst
 * load: pairs with the waiters' seq-cst increment and load in
 * spool__omp_park (the store-buffer pair: either a waiter sees the new
 * generation, or we see its count). */
static void release_parked(spool__omp_team_t *team, unsigned self)
{
    if (atomic_load_explicit(&team->bar.sleepers, memory_order_seq_cst) != 0)
        wake_parked(team, self, &team->bar);
}

/* The thread whose change left state at n (every thread arrived, no task
 * left) ends generation g. */
static void release(spool__omp_team_t *team, unsigned self, unsigned g)
{
    spool__omp_barrier_t *b = &team->bar;
    /* Relaxed: no thread changes state until the next generation starts
     * (every thread waits here, and no task is left to make more). */
    atomic_store_explicit(&b->state, 0, memory_order_relaxed);
    /* A cancelled worksharing construct ends at its barrier, as libgomp's
     * does (a static loop has no entry call to end it).  Relaxed: the
     * store of gen below publishes it. */
    if (atomic_load_explicit(&team->ws_cancelled, memory_order_relaxed))
        atomic_store_explicit(&team->ws_cancelled, false, memory_order_relaxed);
    /* Seq-cst (a release): pairs with the waiters' acquire loads of gen
     * in spool__omp_barrier_wait, and with their seq-cst pair in
     * spool__omp_park. */
    atomic_store_explicit(&b->gen, g + 1, memory_order_seq_cst);
    release_parked(team, self);
}

typedef struct barrier_wait {
    spool__omp_barrier_t *b;
    unsigned g;
} barrier_wait_t;

static bool barrier_ready(const void *arg)
{
    const barrier_wait_t *w = arg;
    return released(w->b, w->g, memory_order_seq_cst);
}

bool spool__omp_barrier_wait(spool__omp_team_t *team, unsigned id)
{
    spool__omp_barrier_t *b = &team->bar;
    unsigned n = team->nthreads;
    /* Relaxed: this thread saw the generation it is in (it bumped it, or
     * acquired it when its last barrier ended). */
    unsigned g = atomic_load_explicit(&b->gen, memory_order_relaxed);
    if (atomic_load_explicit(&b->cancelled, memory_order_acquire))
        return true;
    /* Acquire: pairs with the completions' release (the tasks' work is
     * seen); alone, with no task left, the thread has nothing to wait for. */
    if (n == 1 && atomic_load_explicit(&b->state, memory_order_acquire) == 0)
        return false;
    /* Acq_rel: the changes of state form a release sequence that the last
     * one acquires, so that its store of gen publishes every thread's work
     * and every task's. */
    if (atomic_fetch_add_explicit(&b->state, 1, memory_order_acq_rel) + 1 == n) {
        release(team, id, g);
        return atomic_load_explicit(&b->cancelled, memory_order_relaxed);
    }
    unsigned long spin = spool__omp_spin_count(n);
    barrier_wait_t w = {b, g};
    /* Acquire: pairs with the releaser's store of gen (or the canceller's
     * of cancelled).  A park may be set by a waker of an earlier
     * generation that claimed this one's registration late, or by a
     * thread that queued a task (omp.md, W3): the loop looks again and
     * parks again. */
    for (unsigned long i = 0; !released(b, g, memory_order_acquire); i++) {
        if (spool__omp_task_help(team, id))
            i = 0;
        else if (i < spin)
            spool__spin_round(i);
        else
            spool__omp_park(team, id, b, true, NULL, barrier_ready, &w);
    }
    return atomic_load_explicit(&b->cancelled, memory_order_relaxed);
}

void spool__omp_barrier_task_add(spool__omp_team_t *team)
{
    /* Relaxed: the maker holds the state from completing (it has not
     * arrived, or it is a task not complete); the completion publishes. */
    atomic_fetch_add_explicit(&team->bar.state, SPOOL_OMP_TASK_ONE, memory_order_relaxed);
}

void spool__omp_barrier_task_done(spool__omp_team_t *team, unsigned self)
{
    spool__omp_barrier_t *b = &team->bar;
    /* Seq-cst: as an arrival's acq_rel, and the write a region's end
     * waits for (W1, with the wake below). */
    unsigned long long old =
        atomic_fetch_sub_explicit(&b->state, SPOOL_OMP_TASK_ONE, memory_order_seq_cst);
    if (old - SPOOL_OMP_TASK_ONE == team->nthreads) {
        /* Relaxed: every thread has arrived at generation g and read it,
         * and our acquire above follows their arrivals. */
        unsigned g = atomic_load_explicit(&b->gen, memory_order_relaxed);
        release(team, self, g);
    } else if (((old - SPOOL_OMP_TASK_ONE) >> 32) == 0) {
        /* The team's last task: the region's end may be ready. */
        spool__omp_wake(team, self, &b->state);
    }
}

unsigned long spool__omp_barrier_tasks(spool__omp_team_t *team)
{
    /* Acquire: pairs with the completions' release (their work is seen). */
    return (unsigned long)(atomic_load_explicit(&team->bar.state, memory_order_acquire) >> 32);
}

void spool__omp_barrier_task_wake(spool__omp_team_t *team, unsigned self, const void *task)
{
    /* Seq-cst fence after the queue's write, then the count: pairs with
     * the fence in spool__omp_park (the store-buffer pair). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&team->bar.sleepers, memory_order_relaxed) == 0)
        return;
    /* One waiter that may run the task is enough (B5): it runs it, or
     * another task it may run and then this one, or sees it taken. */
    unsigned n = team->nthreads;
    for (unsigned k = 1; k <= n; k++) {
        unsigned i = self < n ? (self + k) % n : k - 1;
        if (i == self)
            continue;
        spool__omp_member_t *m = &team->members[i];
        /* Acquire pairs with the waiter's release store of parked (what it
         * may run is set up); acq_rel on the claim, as in claim(). */
        if (atomic_load_explicit(&m->parked, memory_order_acquire) != 0 &&
            atomic_load_explicit(&m->wait_tasks, memory_order_relaxed) &&
            spool__omp_task_may_run(task, atomic_load_explicit(&m->wait_anc, memory_order_relaxed)) &&
            atomic_exchange_explicit(&m->parked, 0, memory_order_acq_rel) != 0) {
            spool__park_set(&m->park);
            return;
        }
    }
}

void spool__omp_barrier_cancel(spool__omp_team_t *team, unsigned id)
{
    spool__omp_barrier_t *b = &team->bar;
    /* Seq-cst: as the store of gen in release(). */
    atomic_store_explicit(&b->cancelled, true, memory_order_seq_cst);
    release_parked(team, id);
}

/* ---- the end of a region (omp.md, "Teams", step 5) ---------------------------------- */

void spool__omp_join_arrive(spool__omp_team_t *team)
{
    /* Acq_rel: release pairs with thread 0's acquire loads of join (the
     * member's work is visible to it); acquire reads PARKED with the
     * park that thread 0 set up before it. */
    unsigned old = atomic_fetch_sub_explicit(&team->join, 1, memory_order_acq_rel);
    if (old == (1u | SPOOL_OMP_JOIN_PARKED))
        spool__park_set(&team->members[0].park);
}

void spool__omp_join_wait(spool__omp_team_t *team)
{
    /* Acquire (each load) pairs with the members' release decrements in
     * spool__omp_join_arrive: their work is visible. */
    unsigned long spin = spool__omp_spin_count(team->nthreads);
    for (unsigned long i = 0; atomic_load_explicit(&team->join, memory_order_acquire) != 0; i++) {
        if (i < spin) {
            spool__spin_round(i);
            continue;
        }
        spool__omp_member_t *m0 = &team->members[0];
        if (spool__park_init(&m0->park) != 0)
            spool__omp_fatal("cannot set up a wait for the team's end");
        /* Acq_rel: acquire as above; release pairs with the last member's
         * acquire decrement, which then sees the park set up. */
        unsigned old =
            atomic_fetch_or_explicit(&team->join, SPOOL_OMP_JOIN_PARKED, memory_order_acq_rel);
        if ((old & ~SPOOL_OMP_JOIN_PARKED) != 0)
            spool__omp_park_wait(&m0->park);
        spool__park_destroy(&m0->park);
        break;
    }
}
