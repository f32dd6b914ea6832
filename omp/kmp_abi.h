/*
 * Internal: LLVM's OpenMP ABI (the __kmpc_ entry points clang emits; omp.md,
 * "The __kmpc_ door"), a second front door onto the teams, work shares,
 * tasks and waits the GOMP_ entry points use.  The layouts are clang's:
 * the door's tests, built by clang (tests/omp/kmp_door.c, kmp_waits.c,
 * kmp_private.c, kmp_cxx.cpp), use each through clang's own code.  Never
 * installed.
 */
#ifndef SPOOL_OMP_KMP_ABI_H
#define SPOOL_OMP_KMP_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "gomp_abi.h" /* the omp_ API and its types (the same sizes as clang's) */

/* A construct's source location (clang's ident_t). */
typedef struct spool__kmp_ident {
    int32_t reserved_1;
    int32_t flags;
    int32_t reserved_2;
    int32_t reserved_3;
    const char *psource;
} spool__kmp_ident_t;

/* An outlined region: fn(&gtid, &bound_tid, shared...), each shared
 * argument pointer-sized. */
typedef void (*spool__kmp_micro_t)(int32_t *gtid, int32_t *btid, ...);

/* A critical's lock (clang's kmp_critical_name), zero at start: its first
 * word is a lock word (lock.h). */
typedef int32_t spool__kmp_critical_t[8];

/* A task as clang lays it out (kmp_task_t): the compiler's privates follow
 * it, its shareds after them. */
typedef int32_t (*spool__kmp_routine_t)(int32_t gtid, void *task);
typedef union spool__kmp_cmplrdata {
    int32_t priority;
    spool__kmp_routine_t destructors;
} spool__kmp_cmplrdata_t;
typedef struct spool__kmp_task {
    void *shareds;
    spool__kmp_routine_t routine;
    int32_t part_id;
    spool__kmp_cmplrdata_t data1; /* destructors */
    spool__kmp_cmplrdata_t data2; /* priority */
} spool__kmp_task_t;

/* __kmpc_omp_task_alloc's flags. */
enum {
    SPOOL_KMP_TASK_TIED = 0x1,
    SPOOL_KMP_TASK_FINAL = 0x2,
    SPOOL_KMP_TASK_MERGED_IF0 = 0x4,
    SPOOL_KMP_TASK_DESTRUCTORS = 0x8,
    SPOOL_KMP_TASK_PROXY = 0x10,
    SPOOL_KMP_TASK_PRIORITY = 0x20,
    SPOOL_KMP_TASK_DETACHABLE = 0x40
};

/* A dependence (kmp_depend_info). */
typedef struct spool__kmp_depend {
    intptr_t base_addr;
    size_t len;
    uint8_t flags; /* 1 in, 2 out, 4 mutexinoutset, 8 inoutset */
} spool__kmp_depend_t;

/* An ordered dimension of a doacross loop (kmp_dim): its bounds, both
 * inclusive, and increment. */
typedef struct spool__kmp_dim {
    int64_t lo, up, st;
} spool__kmp_dim_t;

/* The calling thread's global id: 0 for the first thread that asks (the
 * initial thread, as a rule), then one per thread in the order they ask. */
extern _Thread_local int32_t spool__kmp_gtid_tls __attribute__((tls_model("initial-exec")));
int32_t spool__kmp_gtid_new(void);
static inline int32_t spool__kmp_gtid(void)
{
    int32_t g = spool__kmp_gtid_tls;
    return __builtin_expect(g >= 0, 1) ? g : spool__kmp_gtid_new();
}

/* The entry points (kmp_parallel.c, kmp_loop.c, kmp_task.c). */
SPOOL_OMP_API void __kmpc_for_static_init_4(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                            int32_t *plast, int32_t *plower, int32_t *pupper,
                                            int32_t *pstride, int32_t incr, int32_t chunk);
SPOOL_OMP_API void __kmpc_for_static_init_4u(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                             int32_t *plast, uint32_t *plower, uint32_t *pupper,
                                             int32_t *pstride, int32_t incr, int32_t chunk);
SPOOL_OMP_API void __kmpc_for_static_init_8(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                            int32_t *plast, int64_t *plower, int64_t *pupper,
                                            int64_t *pstride, int64_t incr, int64_t chunk);
SPOOL_OMP_API void __kmpc_for_static_init_8u(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                             int32_t *plast, uint64_t *plower, uint64_t *pupper,
                                             int64_t *pstride, int64_t incr, int64_t chunk);
SPOOL_OMP_API void __kmpc_for_static_fini(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_dist_for_static_init_4( spool__kmp_ident_t *loc, int32_t gtid,
                                                 int32_t sched, int32_t *plast, int32_t *plower,
                                                 int32_t *pupper, int32_t *pupperd,
                                                 int32_t *pstride, int32_t incr, int32_t chunk);
SPOOL_OMP_API void __kmpc_dist_for_static_init_4u( spool__kmp_ident_t *loc, int32_t gtid,
                                                  int32_t sched, int32_t *plast, uint32_t *plower,
                                                  uint32_t *pupper, uint32_t *pupperd,
                                                  int32_t *pstride, int32_t incr, int32_t chunk);
SPOOL_OMP_API void __kmpc_dist_for_static_init_8( spool__kmp_ident_t *loc, int32_t gtid,
                                                 int32_t sched, int32_t *plast, int64_t *plower,
                                                 int64_t *pupper, int64_t *pupperd,
                                                 int64_t *pstride, int64_t incr, int64_t chunk);
SPOOL_OMP_API void __kmpc_dist_for_static_init_8u( spool__kmp_ident_t *loc, int32_t gtid,
                                                  int32_t sched, int32_t *plast, uint64_t *plower,
                                                  uint64_t *pupper, uint64_t *pupperd,
                                                  int64_t *pstride, int64_t incr, int64_t chunk);
SPOOL_OMP_API void __kmpc_dispatch_init_4(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                          int32_t lb, int32_t ub, int32_t st, int32_t chunk);
SPOOL_OMP_API int __kmpc_dispatch_next_4(spool__kmp_ident_t *loc, int32_t gtid, int32_t *plast,
                                         int32_t *plb, int32_t *pub, int32_t *pst);
SPOOL_OMP_API void __kmpc_dispatch_fini_4(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_dispatch_init_4u(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                           uint32_t lb, uint32_t ub, int32_t st, int32_t chunk);
SPOOL_OMP_API int __kmpc_dispatch_next_4u(spool__kmp_ident_t *loc, int32_t gtid, int32_t *plast,
                                          uint32_t *plb, uint32_t *pub, int32_t *pst);
SPOOL_OMP_API void __kmpc_dispatch_fini_4u(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_dispatch_init_8(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                          int64_t lb, int64_t ub, int64_t st, int64_t chunk);
SPOOL_OMP_API int __kmpc_dispatch_next_8(spool__kmp_ident_t *loc, int32_t gtid, int32_t *plast,
                                         int64_t *plb, int64_t *pub, int64_t *pst);
SPOOL_OMP_API void __kmpc_dispatch_fini_8(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_dispatch_init_8u(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                           uint64_t lb, uint64_t ub, int64_t st, int64_t chunk);
SPOOL_OMP_API int __kmpc_dispatch_next_8u(spool__kmp_ident_t *loc, int32_t gtid, int32_t *plast,
                                          uint64_t *plb, uint64_t *pub, int64_t *pst);
SPOOL_OMP_API void __kmpc_dispatch_fini_8u(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_dist_dispatch_init_4(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                               int32_t *plast, int32_t lb, int32_t ub, int32_t st,
                                               int32_t chunk);
SPOOL_OMP_API void __kmpc_dist_dispatch_init_4u(spool__kmp_ident_t *loc, int32_t gtid,
                                                int32_t sched, int32_t *plast, uint32_t lb,
                                                uint32_t ub, int32_t st, int32_t chunk);
SPOOL_OMP_API void __kmpc_dist_dispatch_init_8(spool__kmp_ident_t *loc, int32_t gtid, int32_t sched,
                                               int32_t *plast, int64_t lb, int64_t ub, int64_t st,
                                               int64_t chunk);
SPOOL_OMP_API void __kmpc_dist_dispatch_init_8u(spool__kmp_ident_t *loc, int32_t gtid,
                                                int32_t sched, int32_t *plast, uint64_t lb,
                                                uint64_t ub, int64_t st, int64_t chunk);
SPOOL_OMP_API int32_t __kmpc_global_thread_num(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_global_num_threads(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_bound_thread_num(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_bound_num_threads(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_in_parallel(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_ok_to_fork(spool__kmp_ident_t *loc);
SPOOL_OMP_API void __kmpc_begin(spool__kmp_ident_t *loc, int32_t flags);
SPOOL_OMP_API void __kmpc_end(spool__kmp_ident_t *loc);
SPOOL_OMP_API void __kmpc_push_num_threads(spool__kmp_ident_t *loc, int32_t gtid,
                                           int32_t num_threads);
SPOOL_OMP_API void __kmpc_push_proc_bind(spool__kmp_ident_t *loc, int32_t gtid, int proc_bind);
SPOOL_OMP_API void __kmpc_fork_call(spool__kmp_ident_t *loc, int32_t argc,
                                    spool__kmp_micro_t microtask, ...);
SPOOL_OMP_API void __kmpc_push_num_teams(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_teams,
                                         int32_t num_threads);
SPOOL_OMP_API void __kmpc_push_num_teams_51(spool__kmp_ident_t *loc, int32_t gtid,
                                            int32_t num_teams_lb, int32_t num_teams_ub,
                                            int32_t num_threads);
SPOOL_OMP_API void __kmpc_fork_teams(spool__kmp_ident_t *loc, int32_t argc,
                                     spool__kmp_micro_t microtask, ...);
SPOOL_OMP_API void __kmpc_serialized_parallel(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_end_serialized_parallel(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_barrier(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_flush(spool__kmp_ident_t *loc);
SPOOL_OMP_API int32_t __kmpc_master(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_end_master(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API int32_t __kmpc_masked(spool__kmp_ident_t *loc, int32_t gtid, int32_t filter);
SPOOL_OMP_API void __kmpc_end_masked(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API int32_t __kmpc_single(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_end_single(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_critical(spool__kmp_ident_t *loc, int32_t gtid,
                                   spool__kmp_critical_t *crit);
SPOOL_OMP_API void __kmpc_critical_with_hint(spool__kmp_ident_t *loc, int32_t gtid,
                                             spool__kmp_critical_t *crit, uint32_t hint);
SPOOL_OMP_API void __kmpc_end_critical(spool__kmp_ident_t *loc, int32_t gtid,
                                       spool__kmp_critical_t *crit);
SPOOL_OMP_API void __kmpc_ordered(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_end_ordered(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_copyprivate(spool__kmp_ident_t *loc, int32_t gtid, size_t cpy_size,
                                      void *cpy_data, void (*cpy_func)(void *, void *),
                                      int32_t didit);
SPOOL_OMP_API int32_t __kmpc_reduce_nowait(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_vars,
                                           size_t reduce_size, void *reduce_data,
                                           void (*reduce_func)(void *lhs, void *rhs),
                                           spool__kmp_critical_t *lck);
SPOOL_OMP_API void __kmpc_end_reduce_nowait(spool__kmp_ident_t *loc, int32_t gtid,
                                            spool__kmp_critical_t *lck);
SPOOL_OMP_API int32_t __kmpc_reduce(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_vars,
                                    size_t reduce_size, void *reduce_data,
                                    void (*reduce_func)(void *lhs, void *rhs),
                                    spool__kmp_critical_t *lck);
SPOOL_OMP_API void __kmpc_end_reduce(spool__kmp_ident_t *loc, int32_t gtid,
                                     spool__kmp_critical_t *lck);
SPOOL_OMP_API int32_t __kmpc_cancel(spool__kmp_ident_t *loc, int32_t gtid, int32_t kind);
SPOOL_OMP_API int32_t __kmpc_cancellationpoint(spool__kmp_ident_t *loc, int32_t gtid, int32_t kind);
SPOOL_OMP_API int32_t __kmpc_cancel_barrier(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API spool__kmp_task_t *__kmpc_omp_task_alloc(spool__kmp_ident_t *loc, int32_t gtid,
                                                       int32_t flags, size_t sizeof_kmp_task_t,
                                                       size_t sizeof_shareds,
                                                       spool__kmp_routine_t task_entry);
SPOOL_OMP_API int32_t __kmpc_omp_task(spool__kmp_ident_t *loc, int32_t gtid,
                                      spool__kmp_task_t *new_task);
SPOOL_OMP_API int32_t __kmpc_omp_task_with_deps(spool__kmp_ident_t *loc, int32_t gtid,
                                                spool__kmp_task_t *new_task, int32_t ndeps,
                                                spool__kmp_depend_t *dep_list,
                                                int32_t ndeps_noalias,
                                                spool__kmp_depend_t *noalias_list);
SPOOL_OMP_API void __kmpc_omp_wait_deps(spool__kmp_ident_t *loc, int32_t gtid, int32_t ndeps,
                                        spool__kmp_depend_t *dep_list, int32_t ndeps_noalias,
                                        spool__kmp_depend_t *noalias_list);
SPOOL_OMP_API void __kmpc_omp_task_begin_if0(spool__kmp_ident_t *loc, int32_t gtid,
                                             spool__kmp_task_t *task);
SPOOL_OMP_API void __kmpc_omp_task_complete_if0(spool__kmp_ident_t *loc, int32_t gtid,
                                                spool__kmp_task_t *task);
SPOOL_OMP_API int32_t __kmpc_omp_taskwait(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API int32_t __kmpc_omp_taskyield(spool__kmp_ident_t *loc, int32_t gtid, int end_part);
SPOOL_OMP_API void __kmpc_taskloop(spool__kmp_ident_t *loc, int32_t gtid, spool__kmp_task_t *task,
                                   int if_val, uint64_t *lb, uint64_t *ub, int64_t st, int nogroup,
                                   int sched, uint64_t grainsize,
                                   void (*task_dup)(spool__kmp_task_t *, spool__kmp_task_t *,
                                   int32_t));

/* A detached task's event (kmp_task.c). */
SPOOL_OMP_API void *__kmpc_task_allow_completion_event(spool__kmp_ident_t *loc, int32_t gtid,
                                                       spool__kmp_task_t *task);

/* Taskgroups and task reductions (kmp_taskred.c). */
struct spool__kmp_taskred;
SPOOL_OMP_API void __kmpc_taskgroup(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void __kmpc_end_taskgroup(spool__kmp_ident_t *loc, int32_t gtid);
SPOOL_OMP_API void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data);
SPOOL_OMP_API void *__kmpc_task_reduction_init(int32_t gtid, int32_t num, void *data);
SPOOL_OMP_API void *__kmpc_taskred_modifier_init(spool__kmp_ident_t *loc, int32_t gtid,
                                                 int32_t is_ws, int32_t num, void *data);
SPOOL_OMP_API void *__kmpc_task_reduction_modifier_init(spool__kmp_ident_t *loc, int32_t gtid,
                                                        int32_t is_ws, int32_t num, void *data);
SPOOL_OMP_API void __kmpc_task_reduction_modifier_fini(spool__kmp_ident_t *loc, int32_t gtid,
                                                       int32_t is_ws);
SPOOL_OMP_API void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tg, void *data);

/* A proxy task's completion (kmp_task.c). */
SPOOL_OMP_API void __kmpc_proxy_task_completed(int32_t gtid, spool__kmp_task_t *ptask);
SPOOL_OMP_API void __kmpc_proxy_task_completed_ooo(spool__kmp_task_t *ptask);

/* Doacross loops (kmp_doacross.c). */
SPOOL_OMP_API void __kmpc_doacross_init(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_dims,
                                        const spool__kmp_dim_t *dims);
SPOOL_OMP_API void __kmpc_doacross_wait(spool__kmp_ident_t *loc, int32_t gtid, const int64_t *vec);
SPOOL_OMP_API void __kmpc_doacross_post(spool__kmp_ident_t *loc, int32_t gtid, const int64_t *vec);
SPOOL_OMP_API void __kmpc_doacross_fini(spool__kmp_ident_t *loc, int32_t gtid);

/* clang's nest locks, one pointer to a gcc one on the heap (kmp_versions.c;
 * also under the omp_ names in libomp's symbol version). */
SPOOL_OMP_API void spool__kmp_init_nest_lock(void **lock);
SPOOL_OMP_API void spool__kmp_init_nest_lock_with_hint(void **lock, int hint);
SPOOL_OMP_API void spool__kmp_destroy_nest_lock(void **lock);
SPOOL_OMP_API void spool__kmp_set_nest_lock(void **lock);
SPOOL_OMP_API void spool__kmp_unset_nest_lock(void **lock);
SPOOL_OMP_API int spool__kmp_test_nest_lock(void **lock);

/* Threadprivate variables, allocations and locks (kmp_private.c). */
SPOOL_OMP_API void *__kmpc_threadprivate_cached(spool__kmp_ident_t *loc, int32_t gtid, void *data,
                                                size_t size, void ***cache);
SPOOL_OMP_API void *__kmpc_threadprivate(spool__kmp_ident_t *loc, int32_t gtid, void *data,
                                         size_t size);
SPOOL_OMP_API void __kmpc_threadprivate_register(spool__kmp_ident_t *loc, void *data,
                                                 void *(*ctor)(void *),
                                                 void *(*cctor)(void *, void *),
                                                 void (*dtor)(void *));
SPOOL_OMP_API void *__kmpc_alloc(int32_t gtid, size_t size, omp_allocator_handle_t allocator);
SPOOL_OMP_API void *__kmpc_aligned_alloc(int32_t gtid, size_t align, size_t size,
                                         omp_allocator_handle_t allocator);
SPOOL_OMP_API void *__kmpc_calloc(int32_t gtid, size_t nmemb, size_t size,
                                  omp_allocator_handle_t allocator);
SPOOL_OMP_API void *__kmpc_realloc(int32_t gtid, void *ptr, size_t size,
                                   omp_allocator_handle_t allocator,
                                   omp_allocator_handle_t free_allocator);
SPOOL_OMP_API void __kmpc_free(int32_t gtid, void *ptr, omp_allocator_handle_t allocator);
SPOOL_OMP_API omp_allocator_handle_t __kmpc_init_allocator(int32_t gtid,
                                                          omp_memspace_handle_t memspace,
                                                          int ntraits,
                                                          omp_alloctrait_t traits[]);
SPOOL_OMP_API void __kmpc_destroy_allocator(int32_t gtid, omp_allocator_handle_t allocator);
SPOOL_OMP_API void __kmpc_set_default_allocator(int32_t gtid, omp_allocator_handle_t allocator);
SPOOL_OMP_API omp_allocator_handle_t __kmpc_get_default_allocator(int32_t gtid);
SPOOL_OMP_API void __kmpc_init_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_destroy_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_set_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_unset_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API int __kmpc_test_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_init_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_destroy_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_set_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_unset_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API int __kmpc_test_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock);
SPOOL_OMP_API void __kmpc_init_lock_with_hint(spool__kmp_ident_t *loc, int32_t gtid, void **lock,
                                              uintptr_t hint);
SPOOL_OMP_API void __kmpc_init_nest_lock_with_hint(spool__kmp_ident_t *loc, int32_t gtid,
                                                   void **lock, uintptr_t hint);

/* The rest of libomp's __kmpc_ entry points for the host (kmp_stubs.c):
 * each ends the process with one line naming itself. */
_Noreturn void spool__kmp_missing(const char *name);

#endif
