/* spool-sparselu's kernels and matrix (sparselu.h), in one file so that
 * every peer calls the same code. */
#include "sparselu.h"

#include <stdint.h>
#include <stdlib.h>

float *lu_block_new(int bs)
{
    return calloc((size_t)bs * (size_t)bs, sizeof(float));
}

/* The matrix, filled from a fixed pseudo-random sequence, with a dominant
 * diagonal so that the factorisation needs no pivoting.  NULL if out of
 * memory. */
lu_matrix_t *lu_matrix_new(int nb, int bs)
{
    lu_matrix_t *m = malloc(sizeof *m);
    if (m == NULL)
        return NULL;
    m->nb = nb;
    m->bs = bs;
    m->blocks = calloc((size_t)nb * (size_t)nb, sizeof *m->blocks);
    if (m->blocks == NULL) {
        free(m);
        return NULL;
    }
    uint32_t seed = 12345;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            if (!lu_present(i, j))
                continue;
            float *b = lu_block_new(bs);
            if (b == NULL)
                return m; /* the caller's check of the result fails */
            for (int k = 0; k < bs * bs; k++) {
                seed = seed * 1103515245u + 12345u;
                b[k] = (float)((seed >> 16) & 0x7fff) / 32768.0f - 0.5f;
            }
            if (i == j)
                for (int k = 0; k < bs; k++)
                    b[k * bs + k] += (float)(2 * bs);
            *lu_at(m, i, j) = b;
        }
    return m;
}

void lu_matrix_free(lu_matrix_t *m)
{
    for (int k = 0; k < m->nb * m->nb; k++)
        free(m->blocks[k]);
    free(m->blocks);
    free(m);
}

/* The diagonal block, factored in place (L below the diagonal, unit
 * diagonal implied; U on and above it). */
void lu_factor_diag(float *d, int bs)
{
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            d[i * bs + k] /= d[k * bs + k];
            float l = d[i * bs + k];
            for (int j = k + 1; j < bs; j++)
                d[i * bs + j] -= l * d[k * bs + j];
        }
}

/* A block right of the diagonal: L^-1 applied to it. */
void lu_row_update(const float *d, float *r, int bs)
{
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            float l = d[i * bs + k];
            for (int j = 0; j < bs; j++)
                r[i * bs + j] -= l * r[k * bs + j];
        }
}

/* A block below the diagonal: times U^-1. */
void lu_col_update(const float *d, float *c, int bs)
{
    for (int i = 0; i < bs; i++)
        for (int k = 0; k < bs; k++) {
            c[i * bs + k] /= d[k * bs + k];
            float x = c[i * bs + k];
            for (int j = k + 1; j < bs; j++)
                c[i * bs + j] -= x * d[k * bs + j];
        }
}

/* The trailing update inner -= col * row. */
void lu_trailing_update(const float *col, const float *row, float *inner, int bs)
{
    for (int i = 0; i < bs; i++)
        for (int k = 0; k < bs; k++) {
            float x = col[i * bs + k];
            for (int j = 0; j < bs; j++)
                inner[i * bs + j] -= x * row[k * bs + j];
        }
}

/* A trailing update as a task does it: the block is made on first use
 * (only the task of (ii, jj) touches it in its round). */
void lu_trailing_task(lu_matrix_t *m, int kk, int ii, int jj)
{
    float **inner = lu_at(m, ii, jj);
    if (*inner == NULL)
        *inner = lu_block_new(m->bs);
    if (*inner != NULL)
        lu_trailing_update(*lu_at(m, ii, kk), *lu_at(m, kk, jj), *inner, m->bs);
}

/* A checksum of the factored matrix (its present blocks' sums, weighted by
 * position), the same for every peer up to rounding; -1 if a block could
 * not be allocated. */
double lu_checksum(lu_matrix_t *m)
{
    double sum = 0;
    for (int i = 0; i < m->nb; i++)
        for (int j = 0; j < m->nb; j++) {
            const float *b = *lu_at(m, i, j);
            if (b == NULL)
                continue;
            double s = 0;
            for (int k = 0; k < m->bs * m->bs; k++)
                s += b[k];
            sum += s * (double)(1 + ((i * 7 + j * 13) % 17));
        }
    return sum;
}

