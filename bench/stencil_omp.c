/* spool-stencil's OpenMP peer (stencil.h), schedule(static) both ways: a
 * parallel loop per step ("step"), or one parallel region around the steps
 * with a worksharing loop per step ("region"). */
#include <omp.h>
#include <stddef.h>

#include "stencil.h"

/* Thread c's share of one step: one static part per thread. */
static void chunk(const stencil_t *s, const double *in, double *out, long c, int threads)
{
    long n = (long)s->n;
    stencil_range(in, out, s->n, (size_t)(n * c / threads), (size_t)(n * (c + 1) / threads));
}

int stencil_omp(stencil_t *s, int threads)
{
    double *u = s->u, *v = s->v;
    if (s->form == NULL) { /* step */
        for (int k = 0; k < s->steps; k++) {
#pragma omp parallel for schedule(static) num_threads(threads)
            for (long c = 0; c < threads; c++)
                chunk(s, u, v, c, threads);
            double *t = u;
            u = v;
            v = t;
        }
    } else { /* region */
#pragma omp parallel num_threads(threads) firstprivate(u, v)
        for (int k = 0; k < s->steps; k++) {
#pragma omp for schedule(static)
            for (long c = 0; c < threads; c++)
                chunk(s, u, v, c, threads);
            double *t = u;
            u = v;
            v = t;
        }
        if (s->steps % 2 != 0) {
            u = s->v;
            v = s->u;
        }
    }
    s->u = u;
    s->v = v;
    return 0;
}
