/* An OpenMP program as others write them, built with clang -fopenmp and
 * linked with libomp (tests/omp/ways.sh runs it each way in): it prints
 * which library runs its OpenMP, the name of thread 1 of a region (spool's
 * workers are "spool-N"), a checked sum, and how many libomp.so files the
 * process loaded that are not libspool-omp under that name.  A nest lock
 * sits before a canary: a lock of gcc's size written into clang's
 * one-pointer omp_nest_lock_t would clobber it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

void __kmpc_fork_call(void);

static int other_libomp(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    char path[PATH_MAX];
    if (strstr(info->dlpi_name, "libomp.so") != NULL &&
        (realpath(info->dlpi_name, path) == NULL || strstr(path, "spool-omp") == NULL))
        ++*(int *)arg;
    return 0;
}

int main(void)
{
    Dl_info info;
    const char *runtime = "?";
    if (dladdr((void *)(uintptr_t)__kmpc_fork_call, &info) != 0 && info.dli_fname != NULL)
        runtime = info.dli_fname;
    char name[17] = "none";
    long sum = 0;
    struct {
        omp_nest_lock_t lock;
        long canary;
    } guarded = {.canary = 0x5a5a5a5a};
    omp_init_nest_lock(&guarded.lock);
#pragma omp parallel num_threads(2) reduction(+ : sum)
    {
        if (omp_get_thread_num() == 1)
            prctl(PR_GET_NAME, name, 0, 0, 0);
#pragma omp for schedule(dynamic)
        for (int i = 1; i <= 1000; i++)
            sum += i;
        omp_set_nest_lock(&guarded.lock);
        omp_set_nest_lock(&guarded.lock);
        sum += omp_test_nest_lock(&guarded.lock) == 3 ? 0 : 1000000;
        omp_unset_nest_lock(&guarded.lock);
        omp_unset_nest_lock(&guarded.lock);
        omp_unset_nest_lock(&guarded.lock);
    }
    omp_destroy_nest_lock(&guarded.lock);
    int others = 0;
    dl_iterate_phdr(other_libomp, &others);
    printf("runtime=%s thread1=%s sum=%ld other_runtime=%d canary=%s\n", runtime, name, sum,
           others, guarded.canary == 0x5a5a5a5a ? "kept" : "clobbered");
    return sum == 500500 && guarded.canary == 0x5a5a5a5a ? 0 : 1;
}
