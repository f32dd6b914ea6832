/*
 * spool-stencil: a time-stepped 1D 3-point Jacobi stencil, the shape of
 * every simulation and iterative solver written with OpenMP: a sequential
 * outer loop of steps, each a short parallel loop over the grid.  Each step
 * reads one array and writes the other (out[i] = (in[i-1] + in[i] +
 * in[i+1]) / 3 inside, the ends copied); then they swap.  Every peer calls
 * stencil_range (defined once, in stencil.c, so that all run the same
 * machine code), and every run's grid is checked against the sequential
 * one, bit for bit.
 */
#ifndef SPOOL_BENCH_STENCIL_H
#define SPOOL_BENCH_STENCIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stencil {
    double *u, *v; /* the grid and its next step; after a run u holds the last */
    size_t n;
    int steps;
    const char *form; /* the peer's form: NULL for the default */
} stencil_t;

/* One step over [b, e) of an n-point grid: out from in. */
void stencil_range(const double *in, double *out, size_t n, size_t b, size_t e);

/* The peers outside stencil.c; each runs s->steps steps on s->u and s->v
 * and leaves the last step's grid in s->u.  They return 0, or -1 for a form
 * they do not have (n/a). */
int stencil_omp(stencil_t *s, int threads);
int stencil_tbb(stencil_t *s, int threads);

#ifdef __cplusplus
}
#endif

#endif
