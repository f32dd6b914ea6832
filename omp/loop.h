/* Internal: loops in a work share, their schedules and ordered (loop.c,
 * loop_api.c). */
#ifndef SPOOL_OMP_LOOP_H
#define SPOOL_OMP_LOOP_H

#include "work.h"

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

/* A loop construct met by the calling thread, of n logical iterations
 * (sched and chunk as GOMP_loop_start's): the first thread sets it up
 * (with reduction(task, ...) if reductions, and the shared memory *mem
 * asks, whose address it returns there). */
void spool__omp_loop_enter(spool__omp_thread_t *thr, unsigned long long start,
                           unsigned long long end, unsigned long long incr, unsigned long long n,
                           long sched, unsigned long long chunk, bool ordered,
                           uintptr_t *reductions, void **mem);
/* The calling thread is done with its loop (its last ordered turn passed). */
void spool__omp_loop_leave(spool__omp_thread_t *thr);

#endif
