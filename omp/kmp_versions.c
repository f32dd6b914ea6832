/* The omp_ API in libomp.so.5's version (omp.md, "The __kmpc_ door"): a
 * program built by clang refers to omp_get_thread_num@VERSION and so on,
 * which libspool-omp's own names (in libgomp's versions) do not answer.
 * Each name gets a second, versioned entry that jumps to the one
 * function both doors share (bound in this library: -Bsymbolic-functions),
 * except the nest locks: clang's omp_nest_lock_t is one pointer, too small
 * for gcc's, so its versions keep a gcc lock elsewhere and its address
 * there.  Elsewhere than x86-64 and AArch64 there are no such entries
 * (programs clang built bind their omp_ calls to libomp). */
#include <stdalign.h>
#include <stdlib.h>

#include "env.h"
#include "gomp_abi.h"
#include "kmp_abi.h"

#if defined(__x86_64__) || defined(__aarch64__)

#if defined(__x86_64__)
#define JUMP "jmp"
#else
#define JUMP "b"
#endif

/* name@VERSION, a jump to target. */
#define VERSIONED_AS(name, target)                                                                 \
    __asm__(".text\n"                                                                              \
            ".globl spool__kmp_v_" #name "\n"                                                      \
            ".type spool__kmp_v_" #name ", %function\n"                                            \
            "spool__kmp_v_" #name ":\n\t" JUMP " " #target "\n"                                    \
            ".size spool__kmp_v_" #name ", . - spool__kmp_v_" #name "\n"                           \
            ".symver spool__kmp_v_" #name ", " #name "@VERSION\n");
#define VERSIONED(name) VERSIONED_AS(name, name)

VERSIONED(omp_aligned_alloc)
VERSIONED(omp_aligned_calloc)
VERSIONED(omp_alloc)
VERSIONED(omp_calloc)
VERSIONED(omp_capture_affinity)
VERSIONED(omp_capture_affinity_)
VERSIONED(omp_destroy_allocator)
VERSIONED(omp_destroy_allocator_)
VERSIONED(omp_destroy_lock)
VERSIONED(omp_destroy_lock_)
VERSIONED(omp_display_affinity)
VERSIONED(omp_display_affinity_)
VERSIONED(omp_display_env)
VERSIONED(omp_display_env_)
VERSIONED(omp_free)
VERSIONED(omp_fulfill_event)
VERSIONED(omp_fulfill_event_)
VERSIONED(omp_get_active_level)
VERSIONED(omp_get_active_level_)
VERSIONED(omp_get_affinity_format)
VERSIONED(omp_get_affinity_format_)
VERSIONED(omp_get_ancestor_thread_num)
VERSIONED(omp_get_ancestor_thread_num_)
VERSIONED(omp_get_cancellation)
VERSIONED(omp_get_cancellation_)
VERSIONED(omp_get_default_allocator)
VERSIONED(omp_get_default_allocator_)
VERSIONED(omp_get_default_device)
VERSIONED(omp_get_default_device_)
VERSIONED(omp_get_device_num)
VERSIONED(omp_get_device_num_)
VERSIONED(omp_get_dynamic)
VERSIONED(omp_get_dynamic_)
VERSIONED(omp_get_initial_device)
VERSIONED(omp_get_initial_device_)
VERSIONED(omp_get_level)
VERSIONED(omp_get_level_)
VERSIONED(omp_get_max_active_levels)
VERSIONED(omp_get_max_active_levels_)
VERSIONED(omp_get_max_task_priority)
VERSIONED(omp_get_max_task_priority_)
VERSIONED(omp_get_max_teams)
VERSIONED(omp_get_max_teams_)
VERSIONED(omp_get_max_threads)
VERSIONED(omp_get_max_threads_)
VERSIONED(omp_get_nested)
VERSIONED(omp_get_nested_)
VERSIONED(omp_get_num_devices)
VERSIONED(omp_get_num_devices_)
VERSIONED(omp_get_num_places)
VERSIONED(omp_get_num_places_)
VERSIONED(omp_get_num_procs)
VERSIONED(omp_get_num_procs_)
VERSIONED(omp_get_num_teams)
VERSIONED(omp_get_num_teams_)
VERSIONED(omp_get_num_threads)
VERSIONED(omp_get_num_threads_)
VERSIONED(omp_get_partition_num_places)
VERSIONED(omp_get_partition_num_places_)
VERSIONED(omp_get_partition_place_nums)
VERSIONED(omp_get_partition_place_nums_)
VERSIONED(omp_get_place_num)
VERSIONED(omp_get_place_num_)
VERSIONED(omp_get_place_num_procs)
VERSIONED(omp_get_place_num_procs_)
VERSIONED(omp_get_place_proc_ids)
VERSIONED(omp_get_place_proc_ids_)
VERSIONED(omp_get_proc_bind)
VERSIONED(omp_get_proc_bind_)
VERSIONED(omp_get_schedule)
VERSIONED(omp_get_schedule_)
VERSIONED(omp_get_supported_active_levels)
VERSIONED(omp_get_supported_active_levels_)
VERSIONED(omp_get_team_num)
VERSIONED(omp_get_team_num_)
VERSIONED(omp_get_team_size)
VERSIONED(omp_get_team_size_)
VERSIONED(omp_get_teams_thread_limit)
VERSIONED(omp_get_teams_thread_limit_)
VERSIONED(omp_get_thread_limit)
VERSIONED(omp_get_thread_limit_)
VERSIONED(omp_get_thread_num)
VERSIONED(omp_get_thread_num_)
VERSIONED(omp_get_wtick)
VERSIONED(omp_get_wtick_)
VERSIONED(omp_get_wtime)
VERSIONED(omp_get_wtime_)
VERSIONED(omp_in_final)
VERSIONED(omp_in_final_)
VERSIONED(omp_in_parallel)
VERSIONED(omp_in_parallel_)
VERSIONED(omp_init_allocator)
VERSIONED(omp_init_allocator_)
VERSIONED(omp_init_lock)
VERSIONED(omp_init_lock_)
VERSIONED(omp_init_lock_with_hint)
VERSIONED(omp_is_initial_device)
VERSIONED(omp_is_initial_device_)
VERSIONED(omp_pause_resource)
VERSIONED(omp_pause_resource_)
VERSIONED(omp_pause_resource_all)
VERSIONED(omp_pause_resource_all_)
VERSIONED(omp_realloc)
VERSIONED(omp_set_affinity_format)
VERSIONED(omp_set_affinity_format_)
VERSIONED(omp_set_default_allocator)
VERSIONED(omp_set_default_allocator_)
VERSIONED(omp_set_default_device)
VERSIONED(omp_set_default_device_)
VERSIONED(omp_set_dynamic)
VERSIONED(omp_set_dynamic_)
VERSIONED(omp_set_lock)
VERSIONED(omp_set_lock_)
VERSIONED(omp_set_max_active_levels)
VERSIONED(omp_set_max_active_levels_)
VERSIONED(omp_set_nested)
VERSIONED(omp_set_nested_)
VERSIONED(omp_set_num_teams)
VERSIONED(omp_set_num_teams_)
VERSIONED(omp_set_num_threads)
VERSIONED(omp_set_num_threads_)
VERSIONED(omp_set_schedule)
VERSIONED(omp_set_schedule_)
VERSIONED(omp_set_teams_thread_limit)
VERSIONED(omp_set_teams_thread_limit_)
VERSIONED(omp_test_lock)
VERSIONED(omp_test_lock_)
VERSIONED(omp_unset_lock)
VERSIONED(omp_unset_lock_)

/* libomp's ompc_ names: clang's omp.h calls the affinity-format functions
 * by them, and other compilers the rest; each is its omp_ function. */
VERSIONED_AS(ompc_capture_affinity, omp_capture_affinity)
VERSIONED_AS(ompc_display_affinity, omp_display_affinity)
VERSIONED_AS(ompc_get_affinity_format, omp_get_affinity_format)
VERSIONED_AS(ompc_set_affinity_format, omp_set_affinity_format)
VERSIONED_AS(ompc_get_ancestor_thread_num, omp_get_ancestor_thread_num)
VERSIONED_AS(ompc_get_team_size, omp_get_team_size)
VERSIONED_AS(ompc_set_dynamic, omp_set_dynamic)
VERSIONED_AS(ompc_set_max_active_levels, omp_set_max_active_levels)
VERSIONED_AS(ompc_set_nested, omp_set_nested)
VERSIONED_AS(ompc_set_num_threads, omp_set_num_threads)
VERSIONED_AS(ompc_set_schedule, omp_set_schedule)

/* ---- nest locks: one pointer to a gcc lock ------------------------------------------------ */

static omp_nest_lock_t *gcc_lock(void **lock, const char *what)
{
    if (*lock == NULL)
        spool__omp_fatal("%s: the lock at %p is not initialized", what, (void *)lock);
    return *lock;
}

#define NEST_VERSION(fn, name) __asm__(".symver " #fn ", " #name "@VERSION");

SPOOL_OMP_API void spool__kmp_init_nest_lock(void **lock)
{
    omp_nest_lock_t *l = aligned_alloc(alignof(omp_nest_lock_t), sizeof *l);
    if (l == NULL)
        spool__omp_fatal("omp_init_nest_lock: out of memory");
    omp_init_nest_lock(l);
    *lock = l;
}
NEST_VERSION(spool__kmp_init_nest_lock, omp_init_nest_lock)

SPOOL_OMP_API void spool__kmp_init_nest_lock_with_hint(void **lock, int hint)
{
    (void)hint;
    spool__kmp_init_nest_lock(lock);
}
NEST_VERSION(spool__kmp_init_nest_lock_with_hint, omp_init_nest_lock_with_hint)

SPOOL_OMP_API void spool__kmp_destroy_nest_lock(void **lock)
{
    omp_nest_lock_t *l = gcc_lock(lock, "omp_destroy_nest_lock");
    omp_destroy_nest_lock(l);
    free(l);
    *lock = NULL;
}
NEST_VERSION(spool__kmp_destroy_nest_lock, omp_destroy_nest_lock)

SPOOL_OMP_API void spool__kmp_set_nest_lock(void **lock)
{
    omp_set_nest_lock(gcc_lock(lock, "omp_set_nest_lock"));
}
NEST_VERSION(spool__kmp_set_nest_lock, omp_set_nest_lock)

SPOOL_OMP_API void spool__kmp_unset_nest_lock(void **lock)
{
    omp_unset_nest_lock(gcc_lock(lock, "omp_unset_nest_lock"));
}
NEST_VERSION(spool__kmp_unset_nest_lock, omp_unset_nest_lock)

SPOOL_OMP_API int spool__kmp_test_nest_lock(void **lock)
{
    return omp_test_nest_lock(gcc_lock(lock, "omp_test_nest_lock"));
}
NEST_VERSION(spool__kmp_test_nest_lock, omp_test_nest_lock)

#endif
