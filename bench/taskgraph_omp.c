/* spool-taskgraph's OpenMP peer: tasks with depend clauses, built by one
 * thread of a parallel region (taskgraph.h). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "taskgraph.h"

extern atomic_int *tg_slots;
extern char tg_kind;
extern long tg_n;
void tg_body(long i);
long tg_good_count(void);

long tg_omp_run(int threads, double *seconds);
long tg_omp_run(int threads, double *seconds)
{
    long count = taskgraph_count(tg_kind, tg_n);
    atomic_int *s = tg_slots;
    (void)s; /* named in the depend clauses */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
        long preds[TASKGRAPH_MAX_PREDS];
        for (long i = 0; i < count; i++) {
            if (tg_kind == 'f' && i == tg_n + 1) {
                /* The sink after all n: a taskwait is OpenMP's fan-in. */
#pragma omp taskwait
                tg_body(i);
                continue;
            }
            unsigned k = taskgraph_preds(tg_kind, tg_n, i, preds);
            /* Up to three in-dependences, repeated when fewer. */
            long a = k > 0 ? preds[0] : i, b = k > 1 ? preds[1] : a, c = k > 2 ? preds[2] : b;
            if (k == 0) {
#pragma omp task depend(out : s[i]) firstprivate(i)
                tg_body(i);
            } else {
#pragma omp task depend(in : s[a], s[b], s[c]) depend(out : s[i]) firstprivate(i)
                tg_body(i);
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return tg_good_count();
}
