/*
 * Internal: libspool-omp, gcc's OpenMP ABI on spool's pool (omp.md).
 *
 * A team is a region's threads: the encountering thread (thread 0) and
 * workers of its pool lent to it while they were idle (scheduler/lend.h),
 * each running the region's function as an implicit task.  Per thread:
 * its team state (which team, which thread of it, levels, where it is in
 * the team's worksharing constructs) and its current task (the ICVs).
 * Never installed.
 */
#ifndef SPOOL_OMP_IMPL_H
#define SPOOL_OMP_IMPL_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

#include "platform/atomics.h"
#include "scheduler/lend.h"

/* The ABI's entry points: every GOMP_ and omp_ name libgomp.so.1 exports. */
#define SPOOL_OMP_API __attribute__((visibility("default")))

#define SPOOL_OMP_LINE 64

/* The i-th round of a spinning wait: platform/atomics.h's pause (the
 * model checker drops its inline assembly), and every 64th round a
 * yield, so that a thread this one just woke, which the kernel often
 * queues on this CPU, runs within microseconds instead of after the spin. */
static inline void spool__omp_spin(unsigned long i)
{
#if !defined(SPOOL__MODEL_CHECK)
    if (i % 64 == 63) {
        sched_yield();
        return;
    }
#endif
    (void)i;
    spool__cpu_relax();
}
#define SPOOL_OMP_ALIGNED _Alignas(SPOOL_OMP_LINE)

/* gcc's schedule kinds (omp.h's omp_sched_t, and the ABI's 0 for runtime). */
enum {
    SPOOL_OMP_SCHED_RUNTIME = 0,
    SPOOL_OMP_SCHED_STATIC = 1,
    SPOOL_OMP_SCHED_DYNAMIC = 2,
    SPOOL_OMP_SCHED_GUIDED = 3,
    SPOOL_OMP_SCHED_AUTO = 4,
    SPOOL_OMP_SCHED_MONOTONIC = (int)0x80000000u
};

/* The internal control variables of a task's data environment. */
typedef struct spool__omp_icv {
    unsigned long nthreads;  /* nthreads-var: for the next region */
    unsigned thread_limit;   /* thread-limit-var (UINT_MAX: none) */
    unsigned max_active_levels;
    int run_sched;           /* run-sched-var, a schedule kind | MONOTONIC */
    int run_chunk;
    int bind;                /* bind-var (omp_proc_bind_t) */
    int default_device;
    bool dyn;                /* dyn-var */
} spool__omp_icv_t;

/* A task's data environment: its ICVs.  An explicit task's node
 * (task.h) begins with one (node: true); an implicit task's is its
 * member's, an initial task's its thread's (node: false). */
typedef struct spool__omp_task {
    spool__omp_icv_t icv;
    bool node;
} spool__omp_task_t;

/* ---- work shares --------------------------------------------------------- */

/* How many worksharing constructs a thread may be ahead of the slowest of
 * its team (nowait): the ring of work shares. */
#define SPOOL_OMP_RING 8

/* A worksharing construct's shared state (a loop, sections, a single's
 * copy), in a slot of its team's ring (omp.md, "Work shares"). */
typedef struct spool__omp_ws {
    /* 2d: free for construct d; 2d+1: taken for d (its first thread sets
     * it up). */
    SPOOL_OMP_ALIGNED _Atomic unsigned long gen;
    /* d+1 once construct d is set up; 0 before. */
    _Atomic unsigned long ready;
    /* Threads done with it. */
    _Atomic unsigned left;
    int sched;    /* static, dynamic or guided (no runtime or auto here) */
    bool fast;    /* dynamic: next may overshoot n without wrapping */
    bool ordered;
    /* A loop in its logical iteration space: iteration k is start + k *
     * incr (modulo 2^64, for long and unsigned long long loops alike),
     * k < n; end is the loop's own end, handed out with the last chunk. */
    unsigned long long start, end, incr, n, chunk;
    /* The next logical iteration not handed out (dynamic, guided,
     * sections): the one word threads change. */
    SPOOL_OMP_ALIGNED _Atomic unsigned long long next;
    /* ordered: the logical start of the chunk whose ordered regions may
     * run (each chunk passes it on to its end when it is done). */
    SPOOL_OMP_ALIGNED _Atomic unsigned long long turn;
    /* single copyprivate: the executing thread's data. */
    void *copyprivate;
    /* reduction(task, ...) on the construct: the first thread's array,
     * whose chunks the others share (task_reduce.c). */
    uintptr_t *task_reductions;
    /* GOMP_loop_start's and GOMP_sections2_start's mem: zeroed memory
     * shared by the team for the construct. */
    void *mem;
    /* doacross (ordered(n) with depend): per outermost iteration, the
     * flattened position of the inner iterations posted last, plus one;
     * then the counts of the inner dimensions (one allocation). */
    _Atomic unsigned long long *doacross;
    unsigned long long *doacross_inner;
    unsigned doacross_dims;
} spool__omp_ws_t;

/* ---- teams ---------------------------------------------------------------- */

struct spool__omp_team;

/* A team's barrier (barrier.c; omp.md, "Barriers"): its state is the
 * threads arrived (low half) and the team's implicit tasks with explicit
 * descendants alive (high half, SPOOL_OMP_TASK_ONE each), so that the one
 * change that makes both complete is seen by exactly one thread. */
#define SPOOL_OMP_TASK_ONE (1ull << 32)
typedef struct spool__omp_barrier {
    SPOOL_OMP_ALIGNED _Atomic unsigned long long state;
    SPOOL_OMP_ALIGNED _Atomic unsigned gen;
    _Atomic unsigned sleepers; /* threads registered to park, or parked */
    _Atomic unsigned idle;     /* of them, in a wait that may run any task */
    _Atomic bool cancelled;    /* cancel parallel: barriers return at once */
} spool__omp_barrier_t;

/* One thread of a team. */
typedef struct spool__omp_member {
    SPOOL_OMP_ALIGNED struct spool__omp_team *team;
    unsigned id;
    bool lent; /* a lent worker (else thread 0, or a reserve thread) */
    spool__omp_task_t task; /* its implicit task */
    /* Its park (omp.md, "Waits"): parked is 1 while it is registered and
     * not yet claimed by a waker; wait_obj is what it waits for, and
     * wait_anc, with wait_tasks, whose queued descendants it may run (NULL:
     * any task of the team). */
    _Atomic int parked;
    _Atomic(const void *) wait_obj;
    _Atomic(const void *) wait_anc;
    _Atomic bool wait_tasks;
    spool__park_t park;
} spool__omp_member_t;

/* A thread's state in its current team (saved across a nested region). */
typedef struct spool__omp_ts {
    struct spool__omp_team *team; /* NULL: in no region (an initial task) */
    unsigned id;
    unsigned level, active_level;
    unsigned long ws_next;    /* the number of its next worksharing construct */
    spool__omp_ws_t *ws;      /* the one it is in */
    unsigned long single_count;
    long static_trip;         /* static schedules: chunks taken; -1: done */
    /* ordered: the logical bounds of its chunk; ticket -1: none */
    long long ticket;
    unsigned long long chunk_end;
    /* The teams construct it is in (num_teams 0: none, one team), which
     * the threads of a region inside it see too. */
    unsigned team_num, num_teams;
    /* def-allocator-var (0: OMP_ALLOCATOR's), which its team's threads
     * start with. */
    uintptr_t def_allocator;
} spool__omp_ts_t;

typedef struct spool__omp_team {
    unsigned nthreads;
    unsigned level, active_level;
    void (*fn)(void *);
    void *data;
    spool__omp_ts_t prev_ts;       /* thread 0's state before the region */
    unsigned team_num, num_teams;  /* the teams construct around it (ts) */
    uintptr_t def_allocator;       /* thread 0's def-allocator-var (ts) */
    spool__omp_task_t *prev_task;
    /* Set once nthreads is final: a lent worker reads nothing before. */
    _Atomic int go;
    bool combined; /* every thread starts inside construct 0 */
    /* The region's end: members still running, and PARKED once thread 0
     * parks to wait for them (omp.md, "The end of a region"). */
    SPOOL_OMP_ALIGNED _Atomic unsigned join;
    spool__omp_barrier_t bar;
    SPOOL_OMP_ALIGNED _Atomic unsigned long single_count;
    _Atomic bool ws_cancelled;
    unsigned busy_counted; /* threads counted against OMP_THREAD_LIMIT */
    spool__omp_ws_t ring[SPOOL_OMP_RING];
    unsigned capacity;             /* members allocated */
    struct spool__omp_team *next;  /* the owner's cache of teams */
    spool__omp_member_t *members;  /* capacity of them */
    spool__lend_t *lends;          /* lends[k - 1]: member k's, when lent */
    struct spool__omp_reserve **reserves; /* member k's reserve thread, if bound */
    struct spool__omp_tasking *tasking; /* its explicit tasks (task.h) */
} spool__omp_team_t;

#define SPOOL_OMP_JOIN_PARKED 0x80000000u

/* The calling thread's OpenMP state. */
typedef struct spool__omp_thread {
    spool__omp_ts_t ts;
    spool__omp_task_t *task;       /* the current task */
    spool__omp_task_t initial;     /* its initial task (outside any region) */
    spool__omp_team_t *free_teams; /* teams it led, kept for its next regions */
    spool__omp_ws_t *solo;         /* its work share outside any region */
    bool ready;                    /* initial task set up */
    /* In a target region that some region encloses (its team state shows
     * level 0 all the same). */
    bool under_region;
} spool__omp_thread_t;

extern _Thread_local spool__omp_thread_t spool__omp_tls __attribute__((tls_model("initial-exec")));

void spool__omp_thread_setup(spool__omp_thread_t *thr);

static inline spool__omp_thread_t *spool__omp_thread(void)
{
    spool__omp_thread_t *thr = &spool__omp_tls;
    if (__builtin_expect(!thr->ready, 0))
        spool__omp_thread_setup(thr);
    return thr;
}

static inline spool__omp_icv_t *spool__omp_icv(void)
{
    return &spool__omp_thread()->task->icv;
}

/* dyn-var as it applies to a region the calling thread opens: its task's,
 * and true wherever the thread runs a spool job outside any OpenMP region
 * (a pool's worker, or a thread taking part in a spool call), whose team is
 * then the pool's idle workers (omp.md, "Teams"). */
static inline bool spool__omp_dynamic(spool__omp_thread_t *thr)
{
    return thr->task->icv.dyn ||
           (thr->ts.team == NULL && !thr->under_region && spool__current_pool() != NULL);
}

/* ---- the environment (env.c) ------------------------------------------------ */

typedef struct spool__omp_env {
    spool__omp_icv_t icv;           /* the initial tasks' ICVs */
    unsigned long *nthreads_list;   /* OMP_NUM_THREADS's later levels, or NULL */
    unsigned long nthreads_list_len;
    int wait_policy;                /* 1 active, 0 passive, -1 unset */
    unsigned long spin;             /* pauses before a barrier parks */
    size_t stack_size;              /* OMP_STACKSIZE (0: unset) */
    bool cancellation;
    bool display_affinity;          /* OMP_DISPLAY_AFFINITY */
    int max_task_priority;
    unsigned cpus;                  /* CPUs the process may use */
    unsigned max_threads;           /* the most threads a team may have */
    uintptr_t def_allocator;        /* OMP_ALLOCATOR: def-allocator-var */
    /* nteams-var and teams-thread-limit-var (device ICVs: omp_set_num_teams
     * and omp_set_teams_thread_limit change them for every thread). */
    _Atomic int num_teams, teams_thread_limit;
} spool__omp_env_t;

extern spool__omp_env_t spool__omp_env;

/* libc's getenv, without getenv.c's look at its caller (this library's own
 * reads). */
char *spool__omp_getenv(const char *name);
/* Reads the environment, once (before any other use). */
void spool__omp_env_init(void);
/* One line on stderr, "libspool-omp: ...", and abort. */
_Noreturn void spool__omp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line on stderr, "libspool-omp: ...". */
void spool__omp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The pool for a region opened here: the calling worker's, else the global
 * pool (configured from the environment first); NULL if none can start. */
spool_pool_t *spool__omp_pool(void);

/* ---- affinity (api.c) ---------------------------------------------------------- */

/* affinity-format-var as the environment set it. */
const char *spool__omp_affinity_format(void);
/* OMP_DISPLAY_AFFINITY: the calling thread, starting its implicit task,
 * shows its line if its place in the team's tree changed. */
void spool__omp_affinity_note(spool__omp_thread_t *thr);

/* ---- teams (team.c) ---------------------------------------------------------- */

/* Starts a team for fn(data), thread 0 the caller, of the threads the
 * num_threads clause asks (specified; 0 if none, 1 if the if clause was
 * false) or nthreads-var, as many as the pool can lend; ws0, if not NULL,
 * sets up the team's first work share for the final number of threads (a
 * combined parallel loop or sections) before any member runs.  Returns the
 * number of threads. */
unsigned spool__omp_team_start(void (*fn)(void *), void *data, unsigned specified, unsigned flags,
                               void (*ws0)(spool__omp_ws_t *ws, void *arg, unsigned n),
                               void *ws0_arg);
/* Thread 0, after fn: waits for the team and ends the region. */
void spool__omp_team_end(void);
/* A team thread waits on its park: the jobs a lent worker runs meanwhile
 * see no OpenMP region (level 0, the thread's initial task). */
void spool__omp_park_wait(spool__park_t *p);
/* A thread not in a team is about to touch it after the write that may let
 * it end (a fulfilled event's completion), and is done with it: a leader
 * that exits frees its teams only when no such thread is left. */
void spool__omp_foreign_enter(void);
void spool__omp_foreign_leave(void);

/* ---- barriers and waits (barrier.c) ------------------------------------------- */

void spool__omp_barrier_init(spool__omp_barrier_t *b);
/* The calling thread (thread id of team) arrives and waits for the rest.
 * True if the team's barriers were cancelled (cancel parallel). */
bool spool__omp_barrier_wait(spool__omp_team_t *team, unsigned id);
/* An implicit task of team has its first explicit descendant alive (made
 * by a thread that has not arrived, or by a task not complete), and one
 * has its last freed (by any thread: self is its id in team, or
 * UINT_MAX); the last completes the barrier if every thread has arrived. */
void spool__omp_barrier_task_add(spool__omp_team_t *team);
void spool__omp_barrier_task_done(spool__omp_team_t *team, unsigned self);
/* Implicit tasks of team with explicit descendants alive (a snapshot). */
unsigned long spool__omp_barrier_tasks(spool__omp_team_t *team);
/* Task task was queued: wakes one thread parked in a wait that may run it
 * (self: the caller's id, or UINT_MAX).  The caller's queue write precedes
 * it. */
void spool__omp_barrier_task_wake(spool__omp_team_t *team, unsigned self, const void *task);
/* Thread id cancels the team's barriers: waiters return true from now on. */
void spool__omp_barrier_cancel(spool__omp_team_t *team, unsigned id);
/* The end of a region: a member is done (its last access to team), and
 * thread 0 waits until every member is. */
void spool__omp_join_arrive(spool__omp_team_t *team);
void spool__omp_join_wait(spool__omp_team_t *team);
/* The spin before a thread of a team of n parks. */
unsigned long spool__omp_spin_count(unsigned n);

/* What a parked waiter waits for: ready(arg), with seq-cst loads. */
typedef bool (*spool__omp_ready_fn)(const void *arg);
/* One park of thread id of team (omp.md, "Waits"): it registers on obj and
 * sleeps unless ready(arg) holds or, with tasks, the team has a queued task
 * it may run (a descendant of anc; anc NULL: any); its caller looks again
 * when it returns (a park may be set early, never late). */
void spool__omp_park(spool__omp_team_t *team, unsigned id, const void *obj, bool tasks,
                     const void *anc, spool__omp_ready_fn ready, const void *arg);
/* After a seq-cst write that may make a wait on obj ready: sets the parks
 * of the team's threads registered on obj (self: the caller's id, or
 * UINT_MAX). */
void spool__omp_wake(spool__omp_team_t *team, unsigned self, const void *obj);

/* ---- waits that run no task (wait.c) ------------------------------------------- */

/* Thread id of team (NULL: a thread in no team) waits until ready(arg),
 * registered on obj: it spins, then sleeps (omp.md, "Waits"). */
void spool__omp_wait(spool__omp_team_t *team, unsigned id, const void *obj,
                     spool__omp_ready_fn ready, const void *arg);
/* A thread in no team waits until ready(arg): spins, then sleeps
 * registered on obj; spool__omp_wake_outside(obj), after a seq-cst write
 * that may make it ready, wakes it. */
void spool__omp_wait_outside(const void *obj, spool__omp_ready_fn ready, const void *arg);
void spool__omp_wake_outside(const void *obj);

/* ---- tasks (task.c): what a barrier's waiters call ------------------------- */

/* Runs one queued task of team that thread id may take: true if it ran one. */
bool spool__omp_task_help(spool__omp_team_t *team, unsigned id);
/* True if a thread waiting in task anc (NULL: at a barrier) may run task
 * (a descendant of anc). */
bool spool__omp_task_may_run(const void *task, const void *anc);
/* True if some queue of team holds a task that thread id, waiting in task
 * anc (NULL: at a barrier), would take (the caller fences first). */
bool spool__omp_task_queued(spool__omp_team_t *team, unsigned id, const void *anc);

/* ---- work shares (work.c) ------------------------------------------------------- */

/* The calling thread enters its next worksharing construct: true if it is
 * the first, which sets it up and then calls spool__omp_ws_ready. */
bool spool__omp_ws_enter(spool__omp_thread_t *thr);
void spool__omp_ws_ready(spool__omp_thread_t *thr);
/* The calling thread is done with its construct (the last frees it). */
void spool__omp_ws_leave(spool__omp_thread_t *thr);
/* A team's ring, as new (thread 0, before any member runs). */
void spool__omp_ws_reset(spool__omp_team_t *team);
/* Memory of size bytes for the construct, zeroed, shared by the team (the
 * first thread allocates it, the last frees it). */
void *spool__omp_ws_mem(spool__omp_ws_t *ws, size_t size);

/* ---- loops (loop.c) ------------------------------------------------------------ */

/* The logical iteration count of a long loop, and of an unsigned long long
 * one (up: counting up). */
unsigned long long spool__omp_count_l(long start, long end, long incr);
unsigned long long spool__omp_count_u(bool up, unsigned long long start, unsigned long long end,
                                      unsigned long long incr);
/* Sets up ws for a loop of kind sched (static, dynamic or guided) of n
 * logical iterations, for a team of nthreads. */
void spool__omp_loop_init(spool__omp_ws_t *ws, unsigned long long start, unsigned long long end,
                          unsigned long long incr, unsigned long long n, int sched,
                          unsigned long long chunk, unsigned nthreads);
/* The schedule kind and chunk of sched once runtime and auto are
 * resolved (the monotonic bit dropped). */
int spool__omp_sched_resolve(int sched, unsigned long long *chunk);
/* The next chunk of the calling thread's loop, as logical [*from, *to):
 * false when there is none. */
bool spool__omp_loop_next(spool__omp_thread_t *thr, unsigned long long *from,
                          unsigned long long *to);
/* ordered: the calling thread is done with its chunk; it waits for its
 * turn and passes it on. */
void spool__omp_ordered_pass(spool__omp_thread_t *thr);

/* ---- locks (lock.c) --------------------------------------------------------------- */

/* A word lock: 0 free, 1 held, 2 held with waiters (futex on Linux). */
void spool__omp_lock_word(_Atomic int *w);
void spool__omp_unlock_word(_Atomic int *w);

#endif
