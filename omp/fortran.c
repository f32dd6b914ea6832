/* The Fortran omp_lib bindings, as gfortran calls them: every argument by
 * reference, _8_ forms for integer(8) arguments, strings with their
 * lengths at the end; omp_lock_kind 4 holds the lock itself,
 * omp_nest_lock_kind 8 a pointer to one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gomp_abi.h"

/* Functions of no arguments that return an int. */
#define GET(name)                                                                                  \
    SPOOL_OMP_API int32_t name##_(void);                                                           \
    SPOOL_OMP_API int32_t name##_(void)                                                            \
    {                                                                                              \
        return (int32_t)name();                                                                    \
    }
/* Setters of one int, and their integer(8) forms. */
#define SET(name, type)                                                                            \
    SPOOL_OMP_API void name##_(const int32_t *v);                                                  \
    SPOOL_OMP_API void name##_(const int32_t *v)                                                   \
    {                                                                                              \
        name((type)*v);                                                                            \
    }                                                                                              \
    SPOOL_OMP_API void name##_8_(const int64_t *v);                                                \
    SPOOL_OMP_API void name##_8_(const int64_t *v)                                                 \
    {                                                                                              \
        name((type)(*v > INT32_MAX ? INT32_MAX : *v < INT32_MIN ? INT32_MIN : *v));               \
    }
/* Queries of one int argument, and their integer(8) forms. */
#define QUERY(name)                                                                                \
    SPOOL_OMP_API int32_t name##_(const int32_t *v);                                               \
    SPOOL_OMP_API int32_t name##_(const int32_t *v)                                                \
    {                                                                                              \
        return (int32_t)name(*v);                                                                  \
    }                                                                                              \
    SPOOL_OMP_API int32_t name##_8_(const int64_t *v);                                             \
    SPOOL_OMP_API int32_t name##_8_(const int64_t *v)                                              \
    {                                                                                              \
        return (int32_t)name(*v > INT32_MAX ? INT32_MAX : *v < INT32_MIN ? -1 : (int)*v);         \
    }

GET(omp_get_active_level)
GET(omp_get_cancellation)
GET(omp_get_default_device)
GET(omp_get_device_num)
GET(omp_get_dynamic)
GET(omp_get_initial_device)
GET(omp_get_level)
GET(omp_get_max_active_levels)
GET(omp_get_max_task_priority)
GET(omp_get_max_teams)
GET(omp_get_max_threads)
GET(omp_get_nested)
GET(omp_get_num_devices)
GET(omp_get_num_places)
GET(omp_get_num_procs)
GET(omp_get_num_teams)
GET(omp_get_num_threads)
GET(omp_get_partition_num_places)
GET(omp_get_place_num)
GET(omp_get_proc_bind)
GET(omp_get_supported_active_levels)
GET(omp_get_team_num)
GET(omp_get_teams_thread_limit)
GET(omp_get_thread_limit)
GET(omp_get_thread_num)
GET(omp_in_final)
GET(omp_in_parallel)
GET(omp_is_initial_device)

SET(omp_set_default_device, int)
SET(omp_set_dynamic, int)
SET(omp_set_max_active_levels, int)
SET(omp_set_nested, int)
SET(omp_set_num_teams, int)
SET(omp_set_num_threads, int)
SET(omp_set_teams_thread_limit, int)

QUERY(omp_get_ancestor_thread_num)
QUERY(omp_get_team_size)
QUERY(omp_get_place_num_procs)

SPOOL_OMP_API void omp_display_env_(const int32_t *verbose);
SPOOL_OMP_API void omp_display_env_(const int32_t *verbose)
{
    omp_display_env(*verbose);
}

SPOOL_OMP_API void omp_display_env_8_(const int64_t *verbose);
SPOOL_OMP_API void omp_display_env_8_(const int64_t *verbose)
{
    omp_display_env(*verbose != 0);
}

SPOOL_OMP_API double omp_get_wtime_(void);
SPOOL_OMP_API double omp_get_wtime_(void)
{
    return omp_get_wtime();
}

SPOOL_OMP_API double omp_get_wtick_(void);
SPOOL_OMP_API double omp_get_wtick_(void)
{
    return omp_get_wtick();
}

SPOOL_OMP_API void omp_set_schedule_(const int32_t *kind, const int32_t *chunk);
SPOOL_OMP_API void omp_set_schedule_(const int32_t *kind, const int32_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk);
}

SPOOL_OMP_API void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk);
SPOOL_OMP_API void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk > INT32_MAX ? INT32_MAX : (int)*chunk);
}

SPOOL_OMP_API void omp_get_schedule_(int32_t *kind, int32_t *chunk);
SPOOL_OMP_API void omp_get_schedule_(int32_t *kind, int32_t *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (int32_t)k;
    *chunk = c;
}

SPOOL_OMP_API void omp_get_schedule_8_(int32_t *kind, int64_t *chunk);
SPOOL_OMP_API void omp_get_schedule_8_(int32_t *kind, int64_t *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (int32_t)k;
    *chunk = c;
}

SPOOL_OMP_API void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids);
SPOOL_OMP_API void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids)
{
    (void)place, (void)ids; /* no places: nothing to write */
}

SPOOL_OMP_API void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids);
SPOOL_OMP_API void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids)
{
    (void)place, (void)ids;
}

SPOOL_OMP_API void omp_get_partition_place_nums_(int32_t *nums);
SPOOL_OMP_API void omp_get_partition_place_nums_(int32_t *nums)
{
    (void)nums;
}

SPOOL_OMP_API void omp_get_partition_place_nums_8_(int64_t *nums);
SPOOL_OMP_API void omp_get_partition_place_nums_8_(int64_t *nums)
{
    (void)nums;
}

SPOOL_OMP_API int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device);
SPOOL_OMP_API int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device)
{
    return omp_pause_resource((omp_pause_resource_t)*kind, *device);
}

SPOOL_OMP_API int32_t omp_pause_resource_all_(const int32_t *kind);
SPOOL_OMP_API int32_t omp_pause_resource_all_(const int32_t *kind)
{
    return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

SPOOL_OMP_API void omp_fulfill_event_(const intptr_t *event);
SPOOL_OMP_API void omp_fulfill_event_(const intptr_t *event)
{
    omp_fulfill_event((omp_event_handle_t)*event);
}

/* ---- locks ------------------------------------------------------------------------------ */

SPOOL_OMP_API void omp_init_lock_(omp_lock_t *lock);
SPOOL_OMP_API void omp_init_lock_(omp_lock_t *lock)
{
    omp_init_lock(lock);
}

SPOOL_OMP_API void omp_destroy_lock_(omp_lock_t *lock);
SPOOL_OMP_API void omp_destroy_lock_(omp_lock_t *lock)
{
    omp_destroy_lock(lock);
}

SPOOL_OMP_API void omp_set_lock_(omp_lock_t *lock);
SPOOL_OMP_API void omp_set_lock_(omp_lock_t *lock)
{
    omp_set_lock(lock);
}

SPOOL_OMP_API void omp_unset_lock_(omp_lock_t *lock);
SPOOL_OMP_API void omp_unset_lock_(omp_lock_t *lock)
{
    omp_unset_lock(lock);
}

SPOOL_OMP_API int32_t omp_test_lock_(omp_lock_t *lock);
SPOOL_OMP_API int32_t omp_test_lock_(omp_lock_t *lock)
{
    return omp_test_lock(lock);
}

SPOOL_OMP_API void omp_init_nest_lock_(omp_nest_lock_t **lock);
SPOOL_OMP_API void omp_init_nest_lock_(omp_nest_lock_t **lock)
{
    *lock = malloc(sizeof **lock);
    if (*lock == NULL)
        spool__omp_fatal("omp_init_nest_lock: out of memory");
    omp_init_nest_lock(*lock);
}

SPOOL_OMP_API void omp_destroy_nest_lock_(omp_nest_lock_t **lock);
SPOOL_OMP_API void omp_destroy_nest_lock_(omp_nest_lock_t **lock)
{
    omp_destroy_nest_lock(*lock);
    free(*lock);
    *lock = NULL;
}

SPOOL_OMP_API void omp_set_nest_lock_(omp_nest_lock_t **lock);
SPOOL_OMP_API void omp_set_nest_lock_(omp_nest_lock_t **lock)
{
    omp_set_nest_lock(*lock);
}

SPOOL_OMP_API void omp_unset_nest_lock_(omp_nest_lock_t **lock);
SPOOL_OMP_API void omp_unset_nest_lock_(omp_nest_lock_t **lock)
{
    omp_unset_nest_lock(*lock);
}

SPOOL_OMP_API int32_t omp_test_nest_lock_(omp_nest_lock_t **lock);
SPOOL_OMP_API int32_t omp_test_nest_lock_(omp_nest_lock_t **lock)
{
    return omp_test_nest_lock(*lock);
}

/* ---- allocators ------------------------------------------------------------------------- */

SPOOL_OMP_API intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                                           const omp_alloctrait_t *traits);
SPOOL_OMP_API intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                                           const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, *ntraits, traits);
}

SPOOL_OMP_API intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                                             const omp_alloctrait_t *traits);
SPOOL_OMP_API intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                                             const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, (int)*ntraits, traits);
}

SPOOL_OMP_API void omp_destroy_allocator_(const intptr_t *allocator);
SPOOL_OMP_API void omp_destroy_allocator_(const intptr_t *allocator)
{
    omp_destroy_allocator((omp_allocator_handle_t)*allocator);
}

SPOOL_OMP_API void omp_set_default_allocator_(const intptr_t *allocator);
SPOOL_OMP_API void omp_set_default_allocator_(const intptr_t *allocator)
{
    omp_set_default_allocator((omp_allocator_handle_t)*allocator);
}

SPOOL_OMP_API intptr_t omp_get_default_allocator_(void);
SPOOL_OMP_API intptr_t omp_get_default_allocator_(void)
{
    return (intptr_t)omp_get_default_allocator();
}

/* ---- affinity format strings (Fortran's: lengths apart, blank-padded) -------------------- */

/* s of length len, trailing blanks dropped, as a C string. */
static char *c_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c == NULL)
        spool__omp_fatal("out of memory for an affinity format");
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* C string s into Fortran buffer buf of length len, blank-padded. */
static void f_string(char *buf, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n > len)
        n = len;
    memcpy(buf, s, n);
    memset(buf + n, ' ', len - n);
}

SPOOL_OMP_API void omp_set_affinity_format_(const char *format, size_t len);
SPOOL_OMP_API void omp_set_affinity_format_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    omp_set_affinity_format(c);
    free(c);
}

SPOOL_OMP_API int32_t omp_get_affinity_format_(char *buffer, size_t len);
SPOOL_OMP_API int32_t omp_get_affinity_format_(char *buffer, size_t len)
{
    char c[1024];
    size_t n = omp_get_affinity_format(c, sizeof c);
    f_string(buffer, len, c);
    return (int32_t)n;
}

SPOOL_OMP_API void omp_display_affinity_(const char *format, size_t len);
SPOOL_OMP_API void omp_display_affinity_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    omp_display_affinity(c);
    free(c);
}

SPOOL_OMP_API int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                                            size_t format_len);
SPOOL_OMP_API int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                                            size_t format_len)
{
    char *c = c_string(format, format_len);
    char out[1024];
    size_t n = omp_capture_affinity(out, sizeof out, c);
    free(c);
    f_string(buffer, buffer_len, out);
    return (int32_t)n;
}
