/* spool-stencil's OpenMP peer (stencil.h), schedule(static) both ways: a
 * parallel loop per step ("step"), or one parallel region around the steps
 * with a worksharing loop per step ("region"). */
#include <omp.h>
#include <stddef.h>

#include "stencil.h"

int stencil_omp(stencil_t *s, int threads)
{
    double *u = s->u, *v = s->v;
    long n = (long)s->n;
    if (s->form == NULL) { /* step */
        for (int k = 0; k < s->steps; k++) {
#pragma omp parallel for schedule(static) num_threads(threads)
            for (long c = 0; c < threads; c++)
                stencil_range(u, v, s->n, (size_t)(n * c / threads),
                              (size_t)(n * (c + 1) / threads));
            double *t = u;
            u = v;
            v = t;
        }
    } else { /* region */
#pragma omp parallel num_threads(threads) firstprivate(u, v)
        for (int k = 0; k < s->steps; k++) {
#pragma omp for schedule(static)
            for (long c = 0; c < threads; c++)
                stencil_range(u, v, s->n, (size_t)(n * c / threads),
                              (size_t)(n * (c + 1) / threads));
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
