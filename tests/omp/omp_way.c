/* An OpenMP program as others write them, built with gcc -fopenmp and
 * linked with libgomp (tests/omp/ways.sh runs it each way in): it prints
 * which library runs its OpenMP, the name of thread 1 of a region (spool's
 * workers are "spool-N"), a checked sum, and how many other libgomp.so
 * files the process loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <omp.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

/* Counts the loaded libgomp.so files that are not libspool-omp under that
 * name (gcc's own libgomp, loaded beside it). */
static int other_libgomp(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    char path[PATH_MAX];
    if (strstr(info->dlpi_name, "libgomp.so") != NULL &&
        (realpath(info->dlpi_name, path) == NULL || strstr(path, "spool-omp") == NULL))
        ++*(int *)arg;
    return 0;
}

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
    int others = 0;
    dl_iterate_phdr(other_libgomp, &others);
    printf("runtime=%s thread1=%s sum=%ld other_runtime=%d\n", runtime, name, sum, others);
    return sum == 500500 ? 0 : 1;
}
