/*
 * Internal: what every part of libspool-omp (omp.md) shares: the export
 * attribute, the cache line, gcc's schedule kinds, a task's ICVs, and the
 * names of a team and of a thread's state (team.h defines them).  Never
 * installed; each concern's functions are declared in its own header.
 */
#ifndef SPOOL_OMP_BASE_H
#define SPOOL_OMP_BASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

#include "platform/spin.h"

/* The ABI's entry points: every GOMP_ and omp_ name libgomp.so.1 exports. */
#define SPOOL_OMP_API __attribute__((visibility("default")))

#define SPOOL_OMP_LINE 64
#define SPOOL_OMP_ALIGNED _Alignas(SPOOL_OMP_LINE)

/* Stores v in lv unless lv holds it already: a line that another thread
 * reads next and nobody changed stays valid in its cache (a region's
 * set-up, team.c).  For fields no other thread writes meanwhile. */
#define SPOOL_OMP_SET(lv, v)                                                                      \
    do {                                                                                          \
        if ((lv) != (v))                                                                          \
            (lv) = (v);                                                                           \
    } while (0)

/* The same for an atomic no other thread writes meanwhile: relaxed, as
 * the region's set-up publishes nothing by it (team.go does). */
#define SPOOL_OMP_SET_RELAXED(obj, v)                                                             \
    do {                                                                                          \
        if (atomic_load_explicit(obj, memory_order_relaxed) != (v))                               \
            atomic_store_explicit(obj, v, memory_order_relaxed);                                  \
    } while (0)

/* gcc's schedule kinds (omp.h's omp_sched_t, and the ABI's 0 for runtime). */
enum {
    SPOOL_OMP_SCHED_RUNTIME = 0,
    SPOOL_OMP_SCHED_STATIC = 1,
    SPOOL_OMP_SCHED_DYNAMIC = 2,
    SPOOL_OMP_SCHED_GUIDED = 3,
    SPOOL_OMP_SCHED_AUTO = 4,
    SPOOL_OMP_SCHED_MONOTONIC = (int)0x80000000u,
    /* The simd modifier as libomp reads it (the __kmpc_ door's): the chunk
     * argument is the simd width, chunks are multiples of it (loop.c). */
    SPOOL_OMP_SCHED_SIMD = 0x40000000
};

/* The internal control variables of a task's data environment. */
typedef struct spool__omp_icv {
    unsigned long nthreads;  /* nthreads-var: for the next region */
    unsigned thread_limit;   /* thread-limit-var (UINT_MAX: none) */
    unsigned max_active_levels;
    int run_sched;           /* run-sched-var, a schedule kind | MONOTONIC */
    int run_chunk;
    int bind;                /* bind-var (omp_proc_bind_t) */
    int default_device;
    bool dyn;                /* dyn-var */
} spool__omp_icv_t;

/* A task's data environment: its ICVs.  An explicit task's node
 * (task.h) begins with one (node: true); an implicit task's is its
 * member's, an initial task's its thread's (node: false). */
typedef struct spool__omp_task {
    spool__omp_icv_t icv;
    bool node;
} spool__omp_task_t;

/* A region's team, and the calling thread's OpenMP state (team.h). */
typedef struct spool__omp_team spool__omp_team_t;
typedef struct spool__omp_thread spool__omp_thread_t;

#endif
