/* libomp's kmp_ extensions that programs call (omp.md, "The __kmpc_ door"),
 * in libomp's version.  The stack size applies to the pool's workers when
 * set before the first region (libomp's rule too); the block time and the
 * library mode are kept and answered but change no wait (spool's waits
 * spin briefly and sleep whatever they say). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "env.h"
#include "gomp_abi.h"
#include "kmp_abi.h"
#include "team.h"

SPOOL_OMP_API void kmp_set_stacksize_s(size_t size);
SPOOL_OMP_API void kmp_set_stacksize_s(size_t size)
{
    spool__omp_env.stack_size = size;
}

SPOOL_OMP_API void kmp_set_stacksize(int size);
SPOOL_OMP_API void kmp_set_stacksize(int size)
{
    if (size > 0)
        kmp_set_stacksize_s((size_t)size);
}

/* The workers' stack: OMP_STACKSIZE's, else the threads' default. */
SPOOL_OMP_API size_t kmp_get_stacksize_s(void);
SPOOL_OMP_API size_t kmp_get_stacksize_s(void)
{
    if (spool__omp_env.stack_size != 0)
        return spool__omp_env.stack_size;
    pthread_attr_t attr;
    size_t size = 0;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &size);
        pthread_attr_destroy(&attr);
    }
    return size;
}

SPOOL_OMP_API int kmp_get_stacksize(void);
SPOOL_OMP_API int kmp_get_stacksize(void)
{
    size_t size = kmp_get_stacksize_s();
    return size > INT32_MAX ? INT32_MAX : (int)size;
}

/* libomp's defaults: a block time of 200 ms, the throughput mode (3). */
/* -1 until kmp_set_blocktime: then libomp's default from the environment. */
static _Atomic int blocktime = -1;
static _Atomic int library = 3;

SPOOL_OMP_API void kmp_set_blocktime(int ms);
SPOOL_OMP_API void kmp_set_blocktime(int ms)
{
    /* Relaxed: a value kept for kmp_get_blocktime, which orders nothing. */
    atomic_store_explicit(&blocktime, ms < 0 ? 0 : ms, memory_order_relaxed);
}

/* libomp's initial block time: KMP_BLOCKTIME, else what OMP_WAIT_POLICY
 * implies (active: forever, passive: none), else 200 ms. */
static int blocktime_default(void)
{
    const char *s = spool__omp_getenv("KMP_BLOCKTIME");
    if (s != NULL && *s != '\0') {
        if (strncasecmp(s, "infinit", 7) == 0)
            return INT_MAX;
        char *end;
        long v = strtol(s, &end, 10);
        if (end != s && v >= 0)
            return v > INT_MAX ? INT_MAX : (int)v;
    }
    spool__omp_env_init();
    return spool__omp_env.wait_policy == 1 ? INT_MAX : spool__omp_env.wait_policy == 0 ? 0 : 200;
}

SPOOL_OMP_API int kmp_get_blocktime(void);
SPOOL_OMP_API int kmp_get_blocktime(void)
{
    /* Relaxed: as above. */
    int ms = atomic_load_explicit(&blocktime, memory_order_relaxed);
    return ms >= 0 ? ms : blocktime_default();
}

SPOOL_OMP_API void kmp_set_library(int mode);
SPOOL_OMP_API void kmp_set_library(int mode)
{
    if (mode >= 1 && mode <= 3)
        /* Relaxed: as blocktime's. */
        atomic_store_explicit(&library, mode, memory_order_relaxed);
}

SPOOL_OMP_API int kmp_get_library(void);
SPOOL_OMP_API int kmp_get_library(void)
{
    /* Relaxed: as blocktime's. */
    return atomic_load_explicit(&library, memory_order_relaxed);
}

SPOOL_OMP_API void kmp_set_library_serial(void);
SPOOL_OMP_API void kmp_set_library_serial(void)
{
    kmp_set_library(1);
}

SPOOL_OMP_API void kmp_set_library_turnaround(void);
SPOOL_OMP_API void kmp_set_library_turnaround(void)
{
    kmp_set_library(2);
}

SPOOL_OMP_API void kmp_set_library_throughput(void);
SPOOL_OMP_API void kmp_set_library_throughput(void)
{
    kmp_set_library(3);
}

/* KMP_ settings given as a string, and libomp's warnings and dispatch
 * buffers: nothing of libspool-omp's reads them. */
SPOOL_OMP_API void kmp_set_defaults(const char *str);
SPOOL_OMP_API void kmp_set_defaults(const char *str)
{
    (void)str;
}

SPOOL_OMP_API void kmp_set_disp_num_buffers(int num);
SPOOL_OMP_API void kmp_set_disp_num_buffers(int num)
{
    (void)num;
}

SPOOL_OMP_API void kmp_set_warnings_on(void);
SPOOL_OMP_API void kmp_set_warnings_on(void)
{
}

SPOOL_OMP_API void kmp_set_warnings_off(void);
SPOOL_OMP_API void kmp_set_warnings_off(void)
{
}

SPOOL_OMP_API int kmp_get_num_known_threads(void);
SPOOL_OMP_API int kmp_get_num_known_threads(void)
{
    return __kmpc_global_num_threads(NULL);
}

/* kind: clang's cancel kinds (parallel 1, loop 2, sections 3, taskgroup 4). */
SPOOL_OMP_API int kmp_get_cancellation_status(int kind);
SPOOL_OMP_API int kmp_get_cancellation_status(int kind)
{
    return __kmpc_cancellationpoint(NULL, 0, kind);
}

/* ---- memory ----------------------------------------------------------------------------------- */

SPOOL_OMP_API void *kmp_malloc(size_t size);
SPOOL_OMP_API void *kmp_malloc(size_t size)
{
    return malloc(size);
}

SPOOL_OMP_API void *kmp_aligned_malloc(size_t size, size_t alignment);
SPOOL_OMP_API void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    void *p = NULL;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

SPOOL_OMP_API void *kmp_calloc(size_t nelem, size_t elsize);
SPOOL_OMP_API void *kmp_calloc(size_t nelem, size_t elsize)
{
    return calloc(nelem, elsize);
}

SPOOL_OMP_API void *kmp_realloc(void *ptr, size_t size);
SPOOL_OMP_API void *kmp_realloc(void *ptr, size_t size)
{
    return realloc(ptr, size);
}

SPOOL_OMP_API void kmp_free(void *ptr);
SPOOL_OMP_API void kmp_free(void *ptr)
{
    free(ptr);
}

/* ---- affinity masks: a cpu_set_t each ------------------------------------------------------ */

SPOOL_OMP_API void kmp_create_affinity_mask(void **mask);
SPOOL_OMP_API void kmp_create_affinity_mask(void **mask)
{
    cpu_set_t *set = calloc(1, sizeof *set);
    if (set == NULL)
        spool__omp_fatal("kmp_create_affinity_mask: out of memory");
    *mask = set;
}

SPOOL_OMP_API void kmp_destroy_affinity_mask(void **mask);
SPOOL_OMP_API void kmp_destroy_affinity_mask(void **mask)
{
    free(*mask);
    *mask = NULL;
}

SPOOL_OMP_API int kmp_get_affinity_max_proc(void);
SPOOL_OMP_API int kmp_get_affinity_max_proc(void)
{
    return omp_get_num_procs();
}

/* The set behind mask if proc is within its range, else NULL. */
static cpu_set_t *mask_for(void **mask, int proc)
{
    return mask == NULL || proc < 0 || proc >= CPU_SETSIZE ? NULL : *mask;
}

/* 0, or -1 for a processor outside the mask's range or no mask. */
SPOOL_OMP_API int kmp_set_affinity_mask_proc(int proc, void **mask);
SPOOL_OMP_API int kmp_set_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_for(mask, proc);
    if (set == NULL)
        return -1;
    CPU_SET((unsigned)proc, set);
    return 0;
}

SPOOL_OMP_API int kmp_unset_affinity_mask_proc(int proc, void **mask);
SPOOL_OMP_API int kmp_unset_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_for(mask, proc);
    if (set == NULL)
        return -1;
    CPU_CLR((unsigned)proc, set);
    return 0;
}

/* 1 if proc is in the mask, 0 if not, -1 as above. */
SPOOL_OMP_API int kmp_get_affinity_mask_proc(int proc, void **mask);
SPOOL_OMP_API int kmp_get_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_for(mask, proc);
    if (set == NULL)
        return -1;
    return CPU_ISSET((unsigned)proc, set) ? 1 : 0;
}

/* The calling thread's CPUs: 0, or an errno value. */
SPOOL_OMP_API int kmp_set_affinity(void **mask);
SPOOL_OMP_API int kmp_set_affinity(void **mask)
{
    if (mask == NULL || *mask == NULL)
        return EINVAL;
    return pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), (cpu_set_t *)*mask);
}

SPOOL_OMP_API int kmp_get_affinity(void **mask);
SPOOL_OMP_API int kmp_get_affinity(void **mask)
{
    if (mask == NULL || *mask == NULL)
        return EINVAL;
    return pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), (cpu_set_t *)*mask);
}
