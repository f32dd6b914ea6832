/* libspool-omp's __kmpc_ door: threadprivate variables kept by the runtime
 * (this file is built by clang with -fnoopenmp-use-tls, so every access
 * is a __kmpc_threadprivate_cached call), the allocate directive, and the
 * __kmpc_ lock calls.  Each result is checked; a wrong one ends the
 * program with a line naming it.  Run with OMP_NUM_THREADS=4 (ctest). */
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KMP_TEST "kmp_private"
#include "kmp_check.h"

static int counter = 7;
static double big[64] = {1.5};
#pragma omp threadprivate(counter, big)

static void threadprivate(void)
{
    /* The initial thread's copy is the variable itself. */
    counter = 10;
    int *initial = &counter;
    int ids[4] = {0}, seen[4] = {0};
    atomic_int distinct = 0;
#pragma omp parallel num_threads(4)
    {
        int me = omp_get_thread_num();
        /* Others start from the variable's bytes at its first use. */
        seen[me] = counter;
        counter = 100 + me;
        big[me] += me;
        ids[me] = (int)(&counter == initial);
        if (&counter != initial)
            atomic_fetch_add(&distinct, 1);
    }
    CHECK(seen[0] == 10 && seen[1] == 7 && seen[2] == 7 && seen[3] == 7);
    CHECK(ids[0] == 1 && distinct == 3);
    CHECK(counter == 100 && big[0] == 1.5);
    /* Each thread finds its own copy again in the next region. */
    int again[4] = {0};
    double mine[4] = {0};
#pragma omp parallel num_threads(4)
    {
        again[omp_get_thread_num()] = counter;
        mine[omp_get_thread_num()] = big[omp_get_thread_num()];
    }
    for (int k = 0; k < 4; k++)
        CHECK(again[k] == 100 + k && mine[k] == (k == 0 ? 1.5 : k));
    /* copyin gives every thread the initial thread's value. */
    counter = 42;
    atomic_int right = 0;
#pragma omp parallel num_threads(4) copyin(counter)
    if (counter == 42)
        atomic_fetch_add(&right, 1);
    CHECK(right == 4);
}

static void allocate_directive(void)
{
    int sum = 0;
#pragma omp parallel num_threads(4) reduction(+ : sum)
    {
        int a[256];
#pragma omp allocate(a) allocator(omp_low_lat_mem_alloc)
        for (int k = 0; k < 256; k++)
            a[k] = k;
        for (int k = 0; k < 256; k++)
            sum += a[k];
    }
    CHECK(sum == 4 * 255 * 256 / 2);
}

/* The lock calls some compilers make for the omp_ lock routines. */
void __kmpc_init_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_set_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_unset_lock(void *loc, int32_t gtid, void **lock);
int __kmpc_test_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_destroy_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_init_nest_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_set_nest_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_unset_nest_lock(void *loc, int32_t gtid, void **lock);
int __kmpc_test_nest_lock(void *loc, int32_t gtid, void **lock);
void __kmpc_destroy_nest_lock(void *loc, int32_t gtid, void **lock);
int32_t __kmpc_global_thread_num(void *loc);

static void lock_calls(void)
{
    void *lock = NULL, *nest = NULL;
    long total = 0, nested = 0;
    __kmpc_init_lock(NULL, 0, &lock);
    __kmpc_init_nest_lock(NULL, 0, &nest);
#pragma omp parallel num_threads(4)
    {
        int32_t g = __kmpc_global_thread_num(NULL);
        for (int k = 0; k < 2000; k++) {
            __kmpc_set_lock(NULL, g, &lock);
            long t = total;
            if (k % 500 == 0)
                for (volatile int spin = 0; spin < 1000; spin++)
                    ;
            total = t + 1;
            __kmpc_unset_lock(NULL, g, &lock);
            __kmpc_set_nest_lock(NULL, g, &nest);
            CHECK(__kmpc_test_nest_lock(NULL, g, &nest) == 2);
            nested += 1;
            __kmpc_unset_nest_lock(NULL, g, &nest);
            __kmpc_unset_nest_lock(NULL, g, &nest);
        }
    }
    CHECK(total == 4 * 2000 && nested == 4 * 2000);
    CHECK(__kmpc_test_lock(NULL, 0, &lock) == 1);
    __kmpc_unset_lock(NULL, 0, &lock);
    __kmpc_destroy_lock(NULL, 0, &lock);
    __kmpc_destroy_nest_lock(NULL, 0, &nest);
}

int main(void)
{
    if (!check_threads())
        return 2;
    run_part("test_threadprivate", threadprivate);
    run_part("test_allocate", allocate_directive);
    run_part("test_lock_calls", lock_calls);
    return check_end();
}
