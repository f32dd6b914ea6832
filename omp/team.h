/*
 * Internal: teams and threads (team.c; omp.md, "Teams").  A team is a
 * region's threads: the encountering thread (thread 0) and workers of its
 * pool lent to it while they were idle (scheduler/lend.h), each running the
 * region's function as an implicit task.  Per thread: its team state
 * (which team, which thread of it, levels, where it is in the team's
 * worksharing constructs) and its current task (the ICVs).
 */
#ifndef SPOOL_OMP_TEAM_H
#define SPOOL_OMP_TEAM_H

#include "base.h"
#include "barrier.h"
#include "work.h"

#include "scheduler/lend.h"

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
    /* The __kmpc_ door's doacross loop it is in (kmp_doacross.c). */
    struct kmp_doacross *kmp_doacross;
} spool__omp_ts_t;


struct spool__omp_team {
    unsigned nthreads;
    unsigned level, active_level;
    void (*fn)(void *);
    void *data;
    unsigned team_num, num_teams;  /* the teams construct around it (ts) */
    uintptr_t def_allocator;       /* thread 0's def-allocator-var (ts) */
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
    /* Thread 0's state before the region: on lines the members do not
     * read as they start, since thread 0 rewrites it each region. */
    SPOOL_OMP_ALIGNED spool__omp_ts_t prev_ts;
    spool__omp_task_t *prev_task;
};

#define SPOOL_OMP_JOIN_PARKED 0x80000000u

/* The calling thread's OpenMP state. */
struct spool__omp_thread {
    spool__omp_ts_t ts;
    spool__omp_task_t *task;       /* the current task */
    spool__omp_task_t initial;     /* its initial task (outside any region) */
    spool__omp_team_t *free_teams; /* teams it led, kept for its next regions */
    spool__omp_ws_t *solo;         /* its work share outside any region */
    bool ready;                    /* initial task set up */
    /* In a target region that some region encloses (its team state shows
     * level 0 all the same). */
    bool under_region;
    /* The num_threads and proc_bind clauses of the next region it opens
     * through the __kmpc_ door (kmp_parallel.c; 0: none). */
    unsigned kmp_nthreads;
    unsigned kmp_bind;
    /* Its next teams construct's num_teams and thread_limit (0: none). */
    unsigned kmp_nteams;
    unsigned kmp_team_limit;
};

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

#endif
