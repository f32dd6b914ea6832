/* The median of a benchmark's runs, shared by spool-search and
 * spool-taskgraph. */
#ifndef SPOOL_BENCH_MEDIAN_H
#define SPOOL_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts x[0..n) and returns its middle element (n >= 1). */
static inline double bench_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, bench_cmp_double);
    return x[n / 2];
}

#endif
