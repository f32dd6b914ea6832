/*
 * spool-sparselu: a blocked LU factorisation of a sparse matrix of blocks,
 * the shape of the task-parallel programs written for OpenMP tasks (the
 * Barcelona OpenMP Tasks Suite's SparseLU among them): NB x NB blocks of
 * BS x BS floats, about half of them absent.  For each diagonal block kk,
 * a root factors the diagonal block itself, then runs the row and column
 * updates (fwd, bdiv) as tasks and waits, then the trailing updates (bmod)
 * as tasks and waits; a trailing update allocates its block on first use.
 *
 * The kernels and the matrix are shared by every peer (sparselu.c: the
 * sequential loop and spool; sparselu_omp.c: OpenMP tasks).
 */
#ifndef SPOOL_BENCH_SPARSELU_H
#define SPOOL_BENCH_SPARSELU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lu_matrix {
    int nb, bs;
    float **blocks; /* nb * nb, NULL where the block is absent */
} lu_matrix_t;

static inline float **lu_at(lu_matrix_t *m, int i, int j)
{
    return &m->blocks[(size_t)i * (size_t)m->nb + (size_t)j];
}

/* Which blocks start present: the diagonal and its two neighbours, and a
 * sparse pattern of every third row and column elsewhere. */
static inline bool lu_present(int i, int j)
{
    if (i == j || i == j + 1 || j == i + 1)
        return true;
    if (i % 2 == 1 || j % 2 == 1)
        return false;
    return i < j ? i % 3 == 0 : j % 3 == 0;
}

/* The kernels (sparselu_kernels.c), compiled once so that every peer runs
 * the same code. */
float *lu_block_new(int bs);
/* The matrix, filled from a fixed pseudo-random sequence, with a dominant
 * diagonal so that the factorisation needs no pivoting.  NULL if out of
 * memory. */
lu_matrix_t *lu_matrix_new(int nb, int bs);
void lu_matrix_free(lu_matrix_t *m);
/* The diagonal block, factored in place (L below the diagonal, unit
 * diagonal implied; U on and above it). */
void lu_factor_diag(float *d, int bs);
/* A block right of the diagonal: L^-1 applied to it. */
void lu_row_update(const float *d, float *r, int bs);
/* A block below the diagonal: times U^-1. */
void lu_col_update(const float *d, float *c, int bs);
/* The trailing update inner -= col * row. */
void lu_trailing_update(const float *col, const float *row, float *inner, int bs);
/* A trailing update as a task does it: the block is made on first use
 * (only the task of (ii, jj) touches it in its round). */
void lu_trailing_task(lu_matrix_t *m, int kk, int ii, int jj);
/* A checksum of the factored matrix (its present blocks' sums, weighted by
 * position), the same for every peer; -1 if a block could not be
 * allocated. */
double lu_checksum(lu_matrix_t *m);

#ifdef __cplusplus
}
#endif

#endif
