/* The rest of the omp_ API on the host: time, teams of the teams
 * construct, places and affinity, devices (there are none: the host is
 * the initial device), pausing, and the error directive. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gomp_abi.h"
#include "omp_impl.h"

SPOOL_OMP_API double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

SPOOL_OMP_API double omp_get_wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the teams construct on the host: its teams run one after another --------------- */

static _Thread_local unsigned teams_num, teams_count = 1;
static int num_teams_var, teams_thread_limit_var;

SPOOL_OMP_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                                  unsigned thread_limit, unsigned flags)
{
    (void)flags;
    spool__omp_icv_t *icv = spool__omp_icv();
    unsigned saved_limit = icv->thread_limit;
    if (thread_limit != 0)
        icv->thread_limit = thread_limit;
    if (num_teams == 0)
        num_teams = num_teams_var > 0 ? (unsigned)num_teams_var : 1;
    unsigned saved_num = teams_num, saved_count = teams_count;
    teams_count = num_teams;
    for (teams_num = 0; teams_num < num_teams; teams_num++)
        fn(data);
    teams_num = saved_num;
    teams_count = saved_count;
    icv->thread_limit = saved_limit;
}

SPOOL_OMP_API void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    /* A teams construct inside a target region on the host: one team. */
    (void)num_teams;
    if (thread_limit != 0)
        spool__omp_icv()->thread_limit = thread_limit;
}

SPOOL_OMP_API bool GOMP_teams4(unsigned low, unsigned high, unsigned thread_limit, bool first)
{
    (void)low;
    (void)high;
    if (first && thread_limit != 0)
        spool__omp_icv()->thread_limit = thread_limit;
    /* true runs the teams region once more: once in all. */
    return first;
}

SPOOL_OMP_API int omp_get_num_teams(void)
{
    return (int)teams_count;
}

SPOOL_OMP_API int omp_get_team_num(void)
{
    return (int)teams_num;
}

SPOOL_OMP_API void omp_set_num_teams(int n)
{
    if (n > 0)
        num_teams_var = n;
}

SPOOL_OMP_API int omp_get_max_teams(void)
{
    return num_teams_var;
}

SPOOL_OMP_API void omp_set_teams_thread_limit(int n)
{
    if (n >= 0)
        teams_thread_limit_var = n;
}

SPOOL_OMP_API int omp_get_teams_thread_limit(void)
{
    return teams_thread_limit_var;
}

/* ---- places and affinity: spool places its workers itself (SPOOL_PLACES) ---------- */

SPOOL_OMP_API int omp_get_num_places(void)
{
    return 0;
}

SPOOL_OMP_API int omp_get_place_num_procs(int place)
{
    (void)place;
    return 0;
}

SPOOL_OMP_API void omp_get_place_proc_ids(int place, int *ids)
{
    (void)place;
    (void)ids;
}

SPOOL_OMP_API int omp_get_place_num(void)
{
    return -1;
}

SPOOL_OMP_API int omp_get_partition_num_places(void)
{
    return 0;
}

SPOOL_OMP_API void omp_get_partition_place_nums(int *places)
{
    (void)places;
}

static char affinity_format[256] = "level %L thread %i affinity %A";

SPOOL_OMP_API void omp_set_affinity_format(const char *format)
{
    snprintf(affinity_format, sizeof affinity_format, "%s", format != NULL ? format : "");
}

SPOOL_OMP_API size_t omp_get_affinity_format(char *buffer, size_t size)
{
    size_t len = strlen(affinity_format);
    if (buffer != NULL && size > 0)
        snprintf(buffer, size, "%s", affinity_format);
    return len;
}

/* One field of an affinity format, by its short or long name, into out. */
static void affinity_field(const char *name, size_t len, char *out, size_t size)
{
    static const struct {
        char c;
        const char *name;
    } fields[] = {{'t', "team_num"},          {'T', "num_teams"},
                  {'L', "nesting_level"},     {'n', "thread_num"},
                  {'N', "num_threads"},       {'a', "ancestor_tnum"},
                  {'H', "host"},              {'P', "process_id"},
                  {'i', "native_thread_id"},  {'A', "thread_affinity"}};
    char c = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if ((len == 1 && name[0] == fields[i].c) ||
            (len == strlen(fields[i].name) && strncmp(name, fields[i].name, len) == 0))
            c = fields[i].c;
    switch (c) {
    case 't': snprintf(out, size, "%d", omp_get_team_num()); break;
    case 'T': snprintf(out, size, "%d", omp_get_num_teams()); break;
    case 'L': snprintf(out, size, "%d", omp_get_level()); break;
    case 'n': snprintf(out, size, "%d", omp_get_thread_num()); break;
    case 'N': snprintf(out, size, "%d", omp_get_num_threads()); break;
    case 'a': snprintf(out, size, "%d", omp_get_ancestor_thread_num(omp_get_level() - 1)); break;
    case 'H': if (gethostname(out, size) != 0) snprintf(out, size, "?"); break;
    case 'P': snprintf(out, size, "%ld", (long)getpid()); break;
    case 'i': snprintf(out, size, "%d", spool_current_thread_index()); break;
    case 'A': snprintf(out, size, "0-%d", omp_get_num_procs() - 1); break;
    default: snprintf(out, size, "undefined"); break;
    }
}

SPOOL_OMP_API size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    if (format == NULL || format[0] == '\0')
        format = affinity_format;
    char out[1024];
    size_t n = 0;
    for (const char *p = format; *p != '\0' && n + 1 < sizeof out; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        p++;
        if (*p == '%') {
            out[n++] = '%';
            continue;
        }
        /* An optional 0, . and width, as libgomp reads them, ignored. */
        while (*p == '0' || *p == '.' || (*p >= '1' && *p <= '9'))
            p++;
        const char *name = p;
        size_t len = 1;
        if (*p == '{') {
            name = p + 1;
            const char *end = strchr(name, '}');
            if (end == NULL)
                break;
            len = (size_t)(end - name);
            p = end;
        } else if (*p == '\0') {
            break;
        }
        char field[256];
        affinity_field(name, len, field, sizeof field);
        size_t flen = strlen(field);
        if (flen > sizeof out - 1 - n)
            flen = sizeof out - 1 - n;
        memcpy(out + n, field, flen);
        n += flen;
    }
    out[n] = '\0';
    if (buffer != NULL && size > 0)
        snprintf(buffer, size, "%s", out);
    return n;
}

SPOOL_OMP_API void omp_display_affinity(const char *format)
{
    char line[1024];
    omp_capture_affinity(line, sizeof line, format);
    fprintf(stderr, "%s\n", line);
}

/* ---- devices: only the host ------------------------------------------------------- */

SPOOL_OMP_API int omp_get_num_devices(void)
{
    return 0;
}

SPOOL_OMP_API int omp_get_initial_device(void)
{
    return 0; /* omp_get_num_devices(), as libgomp numbers it */
}

SPOOL_OMP_API int omp_get_device_num(void)
{
    return omp_get_initial_device();
}

SPOOL_OMP_API int omp_is_initial_device(void)
{
    return 1;
}

SPOOL_OMP_API void omp_set_default_device(int device)
{
    spool__omp_icv()->default_device = device < 0 ? 0 : device;
}

SPOOL_OMP_API int omp_get_default_device(void)
{
    return spool__omp_icv()->default_device;
}

static bool host(int device)
{
    return device == omp_get_initial_device();
}

SPOOL_OMP_API void *omp_target_alloc(size_t size, int device)
{
    return host(device) ? malloc(size) : NULL;
}

SPOOL_OMP_API void omp_target_free(void *ptr, int device)
{
    if (host(device))
        free(ptr);
}

SPOOL_OMP_API int omp_target_is_present(const void *ptr, int device)
{
    return ptr == NULL || host(device);
}

SPOOL_OMP_API int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                                    size_t src_offset, int dst_device, int src_device)
{
    if (!host(dst_device) || !host(src_device))
        return EINVAL;
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* One dimension of a rectangular copy, and the ones inside it. */
static void copy_rect(char *dst, const char *src, size_t elem, int dims, const size_t *volume,
                      const size_t *dst_off, const size_t *src_off, const size_t *dst_dims,
                      const size_t *src_dims)
{
    size_t dst_stride = elem, src_stride = elem;
    for (int i = 1; i < dims; i++) {
        dst_stride *= dst_dims[i];
        src_stride *= src_dims[i];
    }
    dst += dst_off[0] * dst_stride;
    src += src_off[0] * src_stride;
    if (dims == 1) {
        memmove(dst, src, volume[0] * elem);
        return;
    }
    for (size_t i = 0; i < volume[0]; i++)
        copy_rect(dst + i * dst_stride, src + i * src_stride, elem, dims - 1, volume + 1,
                  dst_off + 1, src_off + 1, dst_dims + 1, src_dims + 1);
}

SPOOL_OMP_API int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                                         int num_dims, const size_t *volume,
                                         const size_t *dst_offsets, const size_t *src_offsets,
                                         const size_t *dst_dimensions,
                                         const size_t *src_dimensions, int dst_device,
                                         int src_device)
{
    if (dst == NULL && src == NULL)
        return INT_MAX; /* the most dimensions supported */
    if (!host(dst_device) || !host(src_device) || num_dims < 1)
        return EINVAL;
    copy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions,
              src_dimensions);
    return 0;
}

SPOOL_OMP_API int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                           size_t size, size_t device_offset, int device)
{
    (void)host_ptr;
    (void)device_ptr;
    (void)size;
    (void)device_offset;
    (void)device;
    return EINVAL; /* there is no device to associate with */
}

SPOOL_OMP_API int omp_target_disassociate_ptr(const void *ptr, int device)
{
    (void)ptr;
    (void)device;
    return EINVAL;
}

/* Images of offloaded code that a program registers at start: with no
 * device they are never used. */
SPOOL_OMP_API void GOMP_offload_register(const void *host_table, int target_type,
                                         const void *target_data)
{
    (void)host_table;
    (void)target_type;
    (void)target_data;
}

SPOOL_OMP_API void GOMP_offload_register_ver(unsigned version, const void *host_table,
                                             int target_type, const void *target_data)
{
    (void)version;
    GOMP_offload_register(host_table, target_type, target_data);
}

SPOOL_OMP_API void GOMP_offload_unregister(const void *host_table, int target_type,
                                           const void *target_data)
{
    GOMP_offload_register(host_table, target_type, target_data);
}

SPOOL_OMP_API void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                               int target_type, const void *target_data)
{
    (void)version;
    GOMP_offload_register(host_table, target_type, target_data);
}

/* ---- pausing, priorities, the error directive --------------------------------------- */

SPOOL_OMP_API int omp_pause_resource(omp_pause_resource_t kind, int device)
{
    (void)kind;
    /* The pool is shared with spool's own calls: it stays. */
    return host(device) ? 0 : -1;
}

SPOOL_OMP_API int omp_pause_resource_all(omp_pause_resource_t kind)
{
    return omp_pause_resource(kind, omp_get_initial_device());
}

SPOOL_OMP_API int omp_get_max_task_priority(void)
{
    spool__omp_env_init();
    return spool__omp_env.max_task_priority;
}

static void error_directive(const char *severity, const void *msg, size_t len)
{
    if (msg == NULL)
        fprintf(stderr, "libspool-omp: error directive encountered (%s)\n", severity);
    else if (len == (size_t)-1)
        fprintf(stderr, "libspool-omp: error directive encountered (%s): %s\n", severity,
                (const char *)msg);
    else
        fprintf(stderr, "libspool-omp: error directive encountered (%s): %.*s\n", severity,
                (int)len, (const char *)msg);
}

SPOOL_OMP_API void GOMP_warning(const void *msg, size_t len)
{
    error_directive("warning", msg, len);
}

SPOOL_OMP_API void GOMP_error(const void *msg, size_t len)
{
    error_directive("fatal", msg, len);
    exit(EXIT_FAILURE);
}
