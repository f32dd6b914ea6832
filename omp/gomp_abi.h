/*
 * Internal: the GOMP_ entry points gcc 12 emits for OpenMP, as libgomp.so.1
 * (version nodes GOMP_1.0 to GOMP_5.1) exports them for the host; omp.h,
 * gcc's own, declares the omp_ API.  libspool-omp defines every one of
 * them (the ones it does not implement abort with a line naming them).
 */
#ifndef SPOOL_OMP_GOMP_ABI_H
#define SPOOL_OMP_GOMP_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* omp.h declares the omp_ API: exported, whatever -fvisibility says. */
#pragma GCC visibility push(default)
#include <omp.h>
#pragma GCC visibility pop

#include "base.h"

typedef unsigned long long spool__omp_ull;

/* barriers, critical, atomic */
SPOOL_OMP_API void GOMP_barrier(void);
SPOOL_OMP_API bool GOMP_barrier_cancel(void);
SPOOL_OMP_API void GOMP_critical_start(void);
SPOOL_OMP_API void GOMP_critical_end(void);
SPOOL_OMP_API void GOMP_critical_name_start(void **pptr);
SPOOL_OMP_API void GOMP_critical_name_end(void **pptr);
SPOOL_OMP_API void GOMP_atomic_start(void);
SPOOL_OMP_API void GOMP_atomic_end(void);

/* loops, long */
#define SPOOL_OMP_LOOP_L(kind)                                                                     \
    SPOOL_OMP_API bool GOMP_loop_##kind##_start(long, long, long, long, long *, long *);          \
    SPOOL_OMP_API bool GOMP_loop_##kind##_next(long *, long *);
#define SPOOL_OMP_LOOP_L_RT(kind)                                                                  \
    SPOOL_OMP_API bool GOMP_loop_##kind##_start(long, long, long, long *, long *);                \
    SPOOL_OMP_API bool GOMP_loop_##kind##_next(long *, long *);
SPOOL_OMP_LOOP_L(static)
SPOOL_OMP_LOOP_L(dynamic)
SPOOL_OMP_LOOP_L(guided)
SPOOL_OMP_LOOP_L(nonmonotonic_dynamic)
SPOOL_OMP_LOOP_L(nonmonotonic_guided)
SPOOL_OMP_LOOP_L(ordered_static)
SPOOL_OMP_LOOP_L(ordered_dynamic)
SPOOL_OMP_LOOP_L(ordered_guided)
SPOOL_OMP_LOOP_L_RT(runtime)
SPOOL_OMP_LOOP_L_RT(nonmonotonic_runtime)
SPOOL_OMP_LOOP_L_RT(maybe_nonmonotonic_runtime)
SPOOL_OMP_LOOP_L_RT(ordered_runtime)
SPOOL_OMP_API bool GOMP_loop_start(long, long, long, long, long, long *, long *, uintptr_t *,
                                   void **);
SPOOL_OMP_API bool GOMP_loop_ordered_start(long, long, long, long, long, long *, long *,
                                           uintptr_t *, void **);
SPOOL_OMP_API bool GOMP_loop_doacross_static_start(unsigned, long *, long, long *, long *);
SPOOL_OMP_API bool GOMP_loop_doacross_dynamic_start(unsigned, long *, long, long *, long *);
SPOOL_OMP_API bool GOMP_loop_doacross_guided_start(unsigned, long *, long, long *, long *);
SPOOL_OMP_API bool GOMP_loop_doacross_runtime_start(unsigned, long *, long *, long *);
SPOOL_OMP_API bool GOMP_loop_doacross_start(unsigned, long *, long, long, long *, long *,
                                            uintptr_t *, void **);
SPOOL_OMP_API void GOMP_loop_end(void);
SPOOL_OMP_API void GOMP_loop_end_nowait(void);
SPOOL_OMP_API bool GOMP_loop_end_cancel(void);

/* combined parallel loops */
#define SPOOL_OMP_PLOOP(kind)                                                                      \
    SPOOL_OMP_API void GOMP_parallel_loop_##kind(void (*)(void *), void *, unsigned, long, long,  \
                                                 long, long, unsigned);
#define SPOOL_OMP_PLOOP_RT(kind)                                                                   \
    SPOOL_OMP_API void GOMP_parallel_loop_##kind(void (*)(void *), void *, unsigned, long, long,  \
                                                 long, unsigned);
SPOOL_OMP_PLOOP(static)
SPOOL_OMP_PLOOP(dynamic)
SPOOL_OMP_PLOOP(guided)
SPOOL_OMP_PLOOP(nonmonotonic_dynamic)
SPOOL_OMP_PLOOP(nonmonotonic_guided)
SPOOL_OMP_PLOOP_RT(runtime)
SPOOL_OMP_PLOOP_RT(nonmonotonic_runtime)
SPOOL_OMP_PLOOP_RT(maybe_nonmonotonic_runtime)
SPOOL_OMP_API void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long,
                                                   long, long);
SPOOL_OMP_API void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long,
                                                    long, long, long);
SPOOL_OMP_API void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long,
                                                   long, long);
SPOOL_OMP_API void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long,
                                                    long, long);

/* loops, unsigned long long */
#define SPOOL_OMP_LOOP_U(kind)                                                                     \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_start(bool, spool__omp_ull, spool__omp_ull,         \
                                                    spool__omp_ull, spool__omp_ull,               \
                                                    spool__omp_ull *, spool__omp_ull *);          \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_next(spool__omp_ull *, spool__omp_ull *);
#define SPOOL_OMP_LOOP_U_RT(kind)                                                                  \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_start(bool, spool__omp_ull, spool__omp_ull,         \
                                                    spool__omp_ull, spool__omp_ull *,             \
                                                    spool__omp_ull *);                            \
    SPOOL_OMP_API bool GOMP_loop_ull_##kind##_next(spool__omp_ull *, spool__omp_ull *);
SPOOL_OMP_LOOP_U(static)
SPOOL_OMP_LOOP_U(dynamic)
SPOOL_OMP_LOOP_U(guided)
SPOOL_OMP_LOOP_U(nonmonotonic_dynamic)
SPOOL_OMP_LOOP_U(nonmonotonic_guided)
SPOOL_OMP_LOOP_U(ordered_static)
SPOOL_OMP_LOOP_U(ordered_dynamic)
SPOOL_OMP_LOOP_U(ordered_guided)
SPOOL_OMP_LOOP_U_RT(runtime)
SPOOL_OMP_LOOP_U_RT(nonmonotonic_runtime)
SPOOL_OMP_LOOP_U_RT(maybe_nonmonotonic_runtime)
SPOOL_OMP_LOOP_U_RT(ordered_runtime)
SPOOL_OMP_API bool GOMP_loop_ull_start(bool, spool__omp_ull, spool__omp_ull, spool__omp_ull, long,
                                       spool__omp_ull, spool__omp_ull *, spool__omp_ull *,
                                       uintptr_t *, void **);
SPOOL_OMP_API bool GOMP_loop_ull_ordered_start(bool, spool__omp_ull, spool__omp_ull,
                                               spool__omp_ull, long, spool__omp_ull,
                                               spool__omp_ull *, spool__omp_ull *, uintptr_t *,
                                               void **);
SPOOL_OMP_API bool GOMP_loop_ull_doacross_static_start(unsigned, spool__omp_ull *, spool__omp_ull,
                                                       spool__omp_ull *, spool__omp_ull *);
SPOOL_OMP_API bool GOMP_loop_ull_doacross_dynamic_start(unsigned, spool__omp_ull *,
                                                        spool__omp_ull, spool__omp_ull *,
                                                        spool__omp_ull *);
SPOOL_OMP_API bool GOMP_loop_ull_doacross_guided_start(unsigned, spool__omp_ull *, spool__omp_ull,
                                                       spool__omp_ull *, spool__omp_ull *);
SPOOL_OMP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned, spool__omp_ull *,
                                                        spool__omp_ull *, spool__omp_ull *);
SPOOL_OMP_API bool GOMP_loop_ull_doacross_start(unsigned, spool__omp_ull *, long, spool__omp_ull,
                                                spool__omp_ull *, spool__omp_ull *, uintptr_t *,
                                                void **);

/* ordered and doacross */
SPOOL_OMP_API void GOMP_ordered_start(void);
SPOOL_OMP_API void GOMP_ordered_end(void);
SPOOL_OMP_API void GOMP_doacross_post(long *);
SPOOL_OMP_API void GOMP_doacross_wait(long, ...);
SPOOL_OMP_API void GOMP_doacross_ull_post(spool__omp_ull *);
SPOOL_OMP_API void GOMP_doacross_ull_wait(spool__omp_ull, ...);

/* parallel, cancellation */
SPOOL_OMP_API void GOMP_parallel_start(void (*)(void *), void *, unsigned);
SPOOL_OMP_API void GOMP_parallel_end(void);
SPOOL_OMP_API void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);
SPOOL_OMP_API unsigned GOMP_parallel_reductions(void (*)(void *), void *, unsigned, unsigned);
SPOOL_OMP_API bool GOMP_cancel(int, bool);
SPOOL_OMP_API bool GOMP_cancellation_point(int);

/* sections, single, scope */
SPOOL_OMP_API unsigned GOMP_sections_start(unsigned);
SPOOL_OMP_API unsigned GOMP_sections2_start(unsigned, uintptr_t *, void **);
SPOOL_OMP_API unsigned GOMP_sections_next(void);
SPOOL_OMP_API void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
SPOOL_OMP_API void GOMP_parallel_sections(void (*)(void *), void *, unsigned, unsigned, unsigned);
SPOOL_OMP_API void GOMP_sections_end(void);
SPOOL_OMP_API void GOMP_sections_end_nowait(void);
SPOOL_OMP_API bool GOMP_sections_end_cancel(void);
SPOOL_OMP_API bool GOMP_single_start(void);
SPOOL_OMP_API void *GOMP_single_copy_start(void);
SPOOL_OMP_API void GOMP_single_copy_end(void *);
SPOOL_OMP_API void GOMP_scope_start(uintptr_t *);

/* tasks */
SPOOL_OMP_API void GOMP_task(void (*)(void *), void *, void (*)(void *, void *), long, long, bool,
                             unsigned, void **, int, void *);
SPOOL_OMP_API void GOMP_taskloop(void (*)(void *), void *, void (*)(void *, void *), long, long,
                                 unsigned, unsigned long, int, long, long, long);
SPOOL_OMP_API void GOMP_taskloop_ull(void (*)(void *), void *, void (*)(void *, void *), long,
                                     long, unsigned, unsigned long, int, spool__omp_ull,
                                     spool__omp_ull, spool__omp_ull);
SPOOL_OMP_API void GOMP_taskwait(void);
SPOOL_OMP_API void GOMP_taskwait_depend(void **);
SPOOL_OMP_API void GOMP_taskyield(void);
SPOOL_OMP_API void GOMP_taskgroup_start(void);
SPOOL_OMP_API void GOMP_taskgroup_end(void);
SPOOL_OMP_API void GOMP_taskgroup_reduction_register(uintptr_t *);
SPOOL_OMP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *);
SPOOL_OMP_API void GOMP_task_reduction_remap(size_t, size_t, void **);
SPOOL_OMP_API void GOMP_workshare_task_reduction_unregister(bool);

/* target, teams, offload images */
SPOOL_OMP_API void GOMP_target(int, void (*)(void *), const void *, size_t, void **, size_t *,
                               unsigned char *);
SPOOL_OMP_API void GOMP_target_ext(int, void (*)(void *), size_t, void **, size_t *,
                                   unsigned short *, unsigned int, void **, void **);
SPOOL_OMP_API void GOMP_target_data(int, const void *, size_t, void **, size_t *,
                                    unsigned char *);
SPOOL_OMP_API void GOMP_target_data_ext(int, size_t, void **, size_t *, unsigned short *);
SPOOL_OMP_API void GOMP_target_end_data(void);
SPOOL_OMP_API void GOMP_target_update(int, const void *, size_t, void **, size_t *,
                                      unsigned char *);
SPOOL_OMP_API void GOMP_target_update_ext(int, size_t, void **, size_t *, unsigned short *,
                                          unsigned int, void **);
SPOOL_OMP_API void GOMP_target_enter_exit_data(int, size_t, void **, size_t *, unsigned short *,
                                               unsigned int, void **);
SPOOL_OMP_API void GOMP_teams(unsigned int, unsigned int);
SPOOL_OMP_API bool GOMP_teams4(unsigned int, unsigned int, unsigned int, bool);
SPOOL_OMP_API void GOMP_teams_reg(void (*)(void *), void *, unsigned, unsigned, unsigned);
SPOOL_OMP_API void GOMP_offload_register(const void *, int, const void *);
SPOOL_OMP_API void GOMP_offload_register_ver(unsigned, const void *, int, const void *);
SPOOL_OMP_API void GOMP_offload_unregister(const void *, int, const void *);
SPOOL_OMP_API void GOMP_offload_unregister_ver(unsigned, const void *, int, const void *);

/* allocation, error */
SPOOL_OMP_API void *GOMP_alloc(size_t, size_t, uintptr_t);
SPOOL_OMP_API void GOMP_free(void *, uintptr_t);
SPOOL_OMP_API void GOMP_error(const void *, size_t);
SPOOL_OMP_API void GOMP_warning(const void *, size_t);

/* omp_ functions libgomp exports that gcc 12's omp.h does not declare */
SPOOL_OMP_API void omp_init_lock_with_hint(omp_lock_t *, omp_sync_hint_t);
SPOOL_OMP_API void omp_init_nest_lock_with_hint(omp_nest_lock_t *, omp_sync_hint_t);

#endif
