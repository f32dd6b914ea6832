/* An OpenMP program as others write them, built with gcc -fopenmp and
 * linked with libgomp (tests/omp/ways.sh runs it each way in): it prints
 * which library runs its OpenMP, the name of thread 1 of a region (spool's
 * workers are "spool-N"), and a checked sum. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

int main(void)
{
    Dl_info info;
    const char *runtime = "?";
    if (dladdr((void *)(uintptr_t)GOMP_parallel, &info) != 0 && info.dli_fname != NULL)
        runtime = info.dli_fname;
    char name[17] = "none";
    long sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    {
        if (omp_get_thread_num() == 1)
            prctl(PR_GET_NAME, name, 0, 0, 0);
#pragma omp for schedule(dynamic)
        for (int i = 1; i <= 1000; i++)
            sum += i;
    }
    printf("runtime=%s thread1=%s sum=%ld\n", runtime, name, sum);
    return sum == 500500 ? 0 : 1;
}
