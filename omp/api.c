/* The rest of the omp_ API on the host: time, teams of the teams
 * construct, places and affinity, devices (there are none: the host is
 * the initial device), pausing, and the error directive. */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "affinity.h"
#include "env.h"
#include "gomp_abi.h"
#include "team.h"

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

/* As libgomp's host teams: without num_teams, nteams-var's teams, else 3. */
#define HOST_TEAMS 3

SPOOL_OMP_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                                  unsigned thread_limit, unsigned flags)
{
    (void)flags;
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_icv_t *icv = &thr->task->icv;
    unsigned saved_limit = icv->thread_limit;
    if (thread_limit == 0)
        thread_limit = (unsigned)omp_get_teams_thread_limit();
    if (thread_limit != 0)
        icv->thread_limit = thread_limit > INT_MAX ? UINT_MAX : thread_limit;
    if (num_teams == 0)
        num_teams = omp_get_max_teams() > 0 ? (unsigned)omp_get_max_teams() : HOST_TEAMS;
    unsigned saved_num = thr->ts.team_num, saved_count = thr->ts.num_teams;
    thr->ts.num_teams = num_teams;
    for (unsigned t = 0; t < num_teams; t++) {
        thr->ts.team_num = t;
        fn(data);
    }
    thr->ts.team_num = saved_num;
    thr->ts.num_teams = saved_count;
    icv->thread_limit = saved_limit;
}

SPOOL_OMP_API void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    /* A teams construct inside a target region on the host: one team. */
    (void)num_teams;
    if (thread_limit != 0)
        spool__omp_icv()->thread_limit = thread_limit > INT_MAX ? UINT_MAX : thread_limit;
}

SPOOL_OMP_API bool GOMP_teams4(unsigned low, unsigned high, unsigned thread_limit, bool first)
{
    /* The teams of a target teams region, one after another on this
     * thread: true runs the region once more (as thread 0 of team
     * team_num). */
    (void)high;
    spool__omp_thread_t *thr = spool__omp_thread();
    if (first) {
        if (thread_limit != 0)
            thr->task->icv.thread_limit = thread_limit > INT_MAX ? UINT_MAX : thread_limit;
        thr->ts.num_teams = low > 0 ? low : 1;
        thr->ts.team_num = 0;
        return true;
    }
    if (thr->ts.team_num + 1 >= thr->ts.num_teams)
        return false;
    thr->ts.team_num++;
    return true;
}

SPOOL_OMP_API int omp_get_num_teams(void)
{
    unsigned n = spool__omp_thread()->ts.num_teams;
    return n > 0 ? (int)n : 1;
}

SPOOL_OMP_API int omp_get_team_num(void)
{
    return (int)spool__omp_thread()->ts.team_num;
}

SPOOL_OMP_API void omp_set_num_teams(int n)
{
    spool__omp_env_init();
    /* Relaxed: an ICV with no data behind it. */
    if (n >= 0)
        atomic_store_explicit(&spool__omp_env.num_teams, n, memory_order_relaxed);
}

SPOOL_OMP_API int omp_get_max_teams(void)
{
    spool__omp_env_init();
    return atomic_load_explicit(&spool__omp_env.num_teams, memory_order_relaxed);
}

SPOOL_OMP_API void omp_set_teams_thread_limit(int n)
{
    spool__omp_env_init();
    if (n >= 0)
        atomic_store_explicit(&spool__omp_env.teams_thread_limit, n, memory_order_relaxed);
}

SPOOL_OMP_API int omp_get_teams_thread_limit(void)
{
    spool__omp_env_init();
    return atomic_load_explicit(&spool__omp_env.teams_thread_limit, memory_order_relaxed);
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

/* affinity-format-var (OMP_AFFINITY_FORMAT, omp_set_affinity_format). */
static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;
static char *affinity_format; /* guarded by format_lock; NULL: the default */
static const char default_format[] = "level %L thread %i affinity %A";
static pthread_once_t affinity_once = PTHREAD_ONCE_INIT;

static void affinity_env(void)
{
    const char *v = spool__omp_getenv("OMP_AFFINITY_FORMAT");
    if (v != NULL)
        affinity_format = strdup(v);
}

/* A copy of the format, to be freed. */
static char *format_copy(void)
{
    pthread_once(&affinity_once, affinity_env);
    pthread_mutex_lock(&format_lock);
    char *f = strdup(affinity_format != NULL ? affinity_format : default_format);
    pthread_mutex_unlock(&format_lock);
    if (f == NULL)
        spool__omp_fatal("out of memory for the affinity format");
    return f;
}

const char *spool__omp_affinity_format(void)
{
    pthread_once(&affinity_once, affinity_env);
    /* For OMP_DISPLAY_ENV, read once at start-up: no writer yet. */
    return affinity_format != NULL ? affinity_format : default_format;
}

SPOOL_OMP_API void omp_set_affinity_format(const char *format)
{
    char *f = strdup(format != NULL ? format : "");
    if (f == NULL)
        spool__omp_fatal("omp_set_affinity_format: out of memory");
    pthread_once(&affinity_once, affinity_env);
    pthread_mutex_lock(&format_lock);
    char *old = affinity_format;
    affinity_format = f;
    pthread_mutex_unlock(&format_lock);
    free(old);
}

/* Copies src into buffer (of size bytes), NUL-ended and cut to fit; returns
 * src's length, as snprintf does. */
static size_t copy_out(char *buffer, size_t size, const char *src, size_t len)
{
    if (buffer != NULL && size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, src, n);
        buffer[n] = '\0';
    }
    return len;
}

SPOOL_OMP_API size_t omp_get_affinity_format(char *buffer, size_t size)
{
    char *f = format_copy();
    size_t len = copy_out(buffer, size, f, strlen(f));
    free(f);
    return len;
}

/* A growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text_t;

static void put(text_t *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *p = realloc(t->s, cap);
        if (p == NULL)
            spool__omp_fatal("out of memory for an affinity line");
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void repeat(text_t *t, char c, size_t n)
{
    for (; n > 0; n--)
        put(t, &c, 1);
}

/* A field's text at a width: numbers zero-padded after their sign or 0x
 * with '0', right-justified with '.', left-justified otherwise. */
static void field_out(text_t *t, const char *v, bool number, bool zero, bool right, size_t width)
{
    size_t len = strlen(v);
    if (width == 0 || len >= width) {
        put(t, v, len);
    } else if (zero && number) {
        size_t skip = v[0] == '-' ? 1 : (v[0] == '0' && v[1] == 'x') ? 2 : 0;
        put(t, v, skip);
        repeat(t, '0', width - len);
        put(t, v + skip, len - skip);
    } else if (right || zero) {
        repeat(t, ' ', width - len);
        put(t, v, len);
    } else {
        put(t, v, len);
        repeat(t, ' ', width - len);
    }
}

/* The affinity field c's text into out; true if it is a number. */
static bool field_value(char c, char *out, size_t size)
{
    switch (c) {
    case 't': snprintf(out, size, "%d", omp_get_team_num()); return true;
    case 'T': snprintf(out, size, "%d", omp_get_num_teams()); return true;
    case 'L': snprintf(out, size, "%d", omp_get_level()); return true;
    case 'n': snprintf(out, size, "%d", omp_get_thread_num()); return true;
    case 'N': snprintf(out, size, "%d", omp_get_num_threads()); return true;
    case 'a': snprintf(out, size, "%d", omp_get_ancestor_thread_num(omp_get_level() - 1)); return true;
    case 'P': snprintf(out, size, "%ld", (long)getpid()); return true;
    case 'i': snprintf(out, size, "0x%lx", (unsigned long)pthread_self()); return true;
    case 'H':
        if (gethostname(out, size) != 0)
            snprintf(out, size, "?");
        out[size - 1] = '\0';
        return false;
    default: /* 'A' */
        snprintf(out, size, "0-%d", omp_get_num_procs() - 1);
        return false;
    }
}

/* The line an affinity format makes for the calling thread. */
static void format_line(text_t *t, const char *format)
{
    static const struct {
        char c;
        const char *name;
    } fields[] = {{'t', "team_num"},         {'T', "num_teams"},    {'L', "nesting_level"},
                  {'n', "thread_num"},       {'N', "num_threads"},  {'a', "ancestor_tnum"},
                  {'H', "host"},             {'P', "process_id"},   {'i', "native_thread_id"},
                  {'A', "thread_affinity"}};
    put(t, "", 0);
    for (const char *p = format; *p != '\0'; p++) {
        if (*p != '%') {
            put(t, p, 1);
            continue;
        }
        p++;
        if (*p == '%') {
            put(t, "%", 1);
            continue;
        }
        bool zero = false, right = false;
        size_t width = 0;
        if (*p == '0') {
            zero = true;
            if (*++p != '.')
                spool__omp_fatal("affinity format '%s': a leading 0 not followed by '.'", format);
        }
        if (*p == '.') {
            right = true;
            p++;
        }
        if (*p >= '1' && *p <= '9') {
            char *end;
            width = strtoul(p, &end, 10);
            p = end;
        } else if (zero || right) {
            spool__omp_fatal("affinity format '%s': 0 or '.' without a width", format);
        }
        char c = 0;
        if (*p == '{') {
            const char *end = strchr(p + 1, '}');
            for (size_t i = 0; end != NULL && i < sizeof fields / sizeof fields[0]; i++)
                if ((size_t)(end - p - 1) == strlen(fields[i].name) &&
                    strncmp(p + 1, fields[i].name, (size_t)(end - p - 1)) == 0)
                    c = fields[i].c;
            if (c == 0)
                spool__omp_fatal("affinity format '%s': no field named %.*s", format,
                                 end != NULL ? (int)(end - p - 1) : (int)strlen(p + 1), p + 1);
            p = end;
        } else {
            for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
                if (*p == fields[i].c)
                    c = *p;
            if (c == 0)
                spool__omp_fatal("affinity format '%s': no field '%%%c'", format, *p ? *p : ' ');
        }
        char value[512];
        bool number = field_value(c, value, sizeof value);
        field_out(t, value, number, zero, right, width);
    }
}

SPOOL_OMP_API size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    char *f = NULL;
    if (format == NULL || format[0] == '\0')
        format = f = format_copy();
    text_t t = {0};
    format_line(&t, format);
    size_t len = copy_out(buffer, size, t.s, t.len);
    free(t.s);
    free(f);
    return len;
}

SPOOL_OMP_API void omp_display_affinity(const char *format)
{
    char *f = NULL;
    if (format == NULL || format[0] == '\0')
        format = f = format_copy();
    text_t t = {0};
    format_line(&t, format);
    put(&t, "\n", 1);
    fputs(t.s, stderr);
    free(t.s);
    free(f);
}

void spool__omp_affinity_note(spool__omp_thread_t *thr)
{
    /* OMP_DISPLAY_AFFINITY: a thread shows its line when it starts in a
     * region whose place in the team's tree differs from the last shown. */
    static _Thread_local unsigned shown_level = UINT_MAX, shown_id, shown_n;
    unsigned n = thr->ts.team != NULL ? thr->ts.team->nthreads : 1;
    if (shown_level == thr->ts.level && shown_id == thr->ts.id && shown_n == n)
        return;
    shown_level = thr->ts.level;
    shown_id = thr->ts.id;
    shown_n = n;
    omp_display_affinity(NULL);
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

/* The error directive's lines are libgomp's, word for word (its prefix
 * too): they are the program's messages, which its users and tests read
 * (omp.md, "The environment"). */
static void error_directive(const char *what, const void *msg, size_t len)
{
    flockfile(stderr);
    fprintf(stderr, "\nlibgomp: %serror directive encountered", what);
    if (msg != NULL) {
        fputs(": ", stderr);
        if (len == (size_t)-1)
            fputs((const char *)msg, stderr);
        else
            fwrite(msg, 1, len, stderr);
    }
    fputc('\n', stderr);
    funlockfile(stderr);
}

SPOOL_OMP_API void GOMP_warning(const void *msg, size_t len)
{
    error_directive("", msg, len);
}

SPOOL_OMP_API void GOMP_error(const void *msg, size_t len)
{
    error_directive("fatal error: ", msg, len);
    exit(EXIT_FAILURE);
}
