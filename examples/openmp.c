/*
 * An OpenMP program on spool's pool: the regions, loops and reduction are
 * plain OpenMP (gcc -fopenmp), linked with libspool-omp (CMake's
 * spool::omp, or pkg-config spool-omp) where libgomp would be; a region
 * calls spool_join too, and both run on the same workers.  An OpenMP
 * program built against libgomp needs no rebuild: `spool-omp ./prog`.
 *
 *   spool_example_openmp [N]      sums 1/k^2 for k <= N, and fib(30)
 */
#include <math.h>
#include <omp.h>
#include <spool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct fib {
    int n;
    long r;
} fib_t;

static void fib(void *p)
{
    fib_t *f = p;
    if (f->n < 20) {
        long a = 0, b = 1;
        for (int i = 0; i < f->n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        f->r = a;
        return;
    }
    fib_t x = {f->n - 1, 0}, y = {f->n - 2, 0};
    spool_join(fib, &x, fib, &y); /* the same pool as the region's threads */
    f->r = x.r + y.r;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    double sum = 0;
    int threads = 0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp for schedule(static)
        for (long k = 1; k <= n; k++)
            sum += 1.0 / ((double)k * (double)k);
    }
    fib_t f = {30, 0};
#pragma omp parallel
#pragma omp single
    fib(&f);
    double pi = sqrt(6 * sum);
    printf("%d threads: pi ~ %.9f, fib(30) = %ld (spool's pool: %u threads)\n", threads, pi,
           f.r, spool_current_num_threads());
    return fabs(pi - 3.14159265) < 1e-4 && f.r == 832040 ? 0 : 1;
}
