/* Internal: a team's worksharing constructs (work.c; omp.md, "Work
 * shares"). */
#ifndef SPOOL_OMP_WORK_H
#define SPOOL_OMP_WORK_H

#include "base.h"

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
    /* The simd modifier (0: none): static blocks and guided chunks are
     * multiples of it (the width, or the chunk, itself one of the width). */
    unsigned long long simd;
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

/* The calling thread enters its next worksharing construct: true if it is
 * the first, which sets it up and then calls spool__omp_ws_ready. */
bool spool__omp_ws_enter(spool__omp_thread_t *thr);
void spool__omp_ws_ready(spool__omp_thread_t *thr);
/* The calling thread is done with its construct (the last frees it). */
void spool__omp_ws_leave(spool__omp_thread_t *thr);
/* A construct beside the calling thread's current one, which stays its
 * current one (the __kmpc_ door's doacross bits and task reductions, set
 * up before the loop they serve): the first thread runs setup(ws, arg).
 * The thread leaves it with spool__omp_ws_leave_aside.  A thread in a
 * team of its own has no construct to share: not for it. */
spool__omp_ws_t *spool__omp_ws_aside(spool__omp_thread_t *thr,
                                     void (*setup)(spool__omp_ws_t *ws, void *arg), void *arg);
void spool__omp_ws_leave_aside(spool__omp_thread_t *thr, spool__omp_ws_t *ws);
/* A team's ring, as new (thread 0, before any member runs). */
void spool__omp_ws_reset(spool__omp_team_t *team);
/* Memory of size bytes for the construct, zeroed, shared by the team (the
 * first thread allocates it, the last frees it). */
void *spool__omp_ws_mem(spool__omp_ws_t *ws, size_t size);

#endif
