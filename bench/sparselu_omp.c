/* spool-sparselu's OpenMP peer: one thread of a parallel region runs the
 * rounds, each round's updates as tasks with a taskwait after each kind
 * (sparselu.h). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>

#include "sparselu.h"

void lu_omp(lu_matrix_t *m, int threads);
void lu_omp(lu_matrix_t *m, int threads)
{
    int nb = m->nb, bs = m->bs;
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (int kk = 0; kk < nb; kk++) {
        float *d = *lu_at(m, kk, kk);
        lu_factor_diag(d, bs);
        for (int jj = kk + 1; jj < nb; jj++)
            if (*lu_at(m, kk, jj) != NULL) {
#pragma omp task firstprivate(kk, jj, d)
                lu_row_update(d, *lu_at(m, kk, jj), bs);
            }
        for (int ii = kk + 1; ii < nb; ii++)
            if (*lu_at(m, ii, kk) != NULL) {
#pragma omp task firstprivate(kk, ii, d)
                lu_col_update(d, *lu_at(m, ii, kk), bs);
            }
#pragma omp taskwait
        for (int ii = kk + 1; ii < nb; ii++) {
            if (*lu_at(m, ii, kk) == NULL)
                continue;
            for (int jj = kk + 1; jj < nb; jj++)
                if (*lu_at(m, kk, jj) != NULL) {
#pragma omp task firstprivate(kk, ii, jj)
                    lu_trailing_task(m, kk, ii, jj);
                }
        }
#pragma omp taskwait
    }
}
