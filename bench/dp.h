/*
 * The data-parallel workloads W8-W14 of the team's peer comparison (triad,
 * mandelbrot, small-loops, sum, nested, loop-in-join, broadcast), for the
 * sequential baseline and spool.  Each run allocates and fills its inputs,
 * times only the loops, then checks the result.
 */
#ifndef SPOOL_BENCH_DP_H
#define SPOOL_BENCH_DP_H

#include <spool.h>

typedef struct bench_dp_out {
    double seconds;   /* the timed section */
    double cpu_s;     /* user + system CPU seconds of the process in it */
    int is_double;    /* the result is printed with %a */
    long ival;
    double dval;
    int ok;           /* the result checked out */
} bench_dp_out_t;

/* Runs workload[/variant] (variant NULL: the default form) of size n.  peer
 * is "seq" or "spool"; spool runs in pool.  Returns 0, or -1 if the peer has
 * no such workload or variant (n/a). */
int bench_dp_run(const char *peer, const char *workload, const char *variant, long n,
                 spool_pool_t *pool, bench_dp_out_t *out);

/* The warm-up size of each workload; 0 for one that is not data-parallel. */
long bench_dp_warm_n(const char *workload);

#endif
