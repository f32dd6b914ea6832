/* The environment: OMP_* variables into the initial ICVs, the pool they
 * size, omp_display_env, and the one-line messages (omp.md, "The
 * environment"). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "affinity.h"
#include "env.h"
#include "gomp_abi.h"
#include "target.h"

#include "scheduler/lend.h"

spool__omp_env_t spool__omp_env;

/* OpenMP's most nested active levels (libgomp's too). */
#define SUPPORTED_ACTIVE_LEVELS 255u

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void display(int verbose);
static unsigned display_env; /* 0 no, 1 yes, 2 verbose */

static void vmessage(const char *fmt, va_list ap)
{
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "libspool-omp: %s\n", line);
}

void spool__omp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

_Noreturn void spool__omp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    abort();
}

/* ---- parsing -------------------------------------------------------------------- */

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* A decimal number at *s (no sign): true and *v, advancing *s. */
static bool parse_ulong(const char **s, unsigned long *v)
{
    const char *p = skip_space(*s);
    if (!isdigit((unsigned char)*p))
        return false;
    char *end;
    errno = 0;
    *v = strtoul(p, &end, 10);
    if (errno != 0)
        return false;
    *s = skip_space(end);
    return true;
}

/* "true" or "false" (any case): 1, 0, or -1 if neither. */
static int parse_bool(const char *v)
{
    v = skip_space(v);
    int r = -1;
    if (strncasecmp(v, "true", 4) == 0) {
        r = 1;
        v += 4;
    } else if (strncasecmp(v, "false", 5) == 0) {
        r = 0;
        v += 5;
    }
    return *skip_space(v) == '\0' ? r : -1;
}

static void env_bool(const char *name, bool *out)
{
    const char *v = spool__omp_getenv(name);
    if (v == NULL)
        return;
    int b = parse_bool(v);
    if (b < 0)
        spool__omp_warn("%s='%s' is neither true nor false; using %s", name, v,
                        *out ? "true" : "false");
    else
        *out = b != 0;
}

/* A non-negative int (positive unless zero_ok). */
static bool env_int(const char *name, int *out, bool zero_ok)
{
    const char *v = spool__omp_getenv(name), *p = v;
    if (v == NULL)
        return false;
    unsigned long n;
    if (!parse_ulong(&p, &n) || *p != '\0' || n > INT_MAX || (n == 0 && !zero_ok)) {
        spool__omp_warn("%s='%s' is not a %s integer; using %d", name, v,
                        zero_ok ? "non-negative" : "positive", *out);
        return false;
    }
    *out = (int)n;
    return true;
}

/* OMP_NUM_THREADS (or SPOOL_NUM_THREADS): a list of positive counts, one
 * per nesting level, each at most max. */
static void parse_num_threads(const char *name, const char *v, unsigned long max)
{
    unsigned long vals[64];
    unsigned long n = 0;
    const char *p = v;
    bool ok = true;
    for (;;) {
        unsigned long x;
        if (!parse_ulong(&p, &x) || x == 0) {
            ok = false;
            break;
        }
        if (n < sizeof vals / sizeof vals[0])
            vals[n++] = x;
        if (*p == '\0')
            break;
        if (*p != ',') {
            ok = false;
            break;
        }
        p++;
    }
    if (!ok) {
        spool__omp_warn("%s='%s' is not a list of positive integers; using %lu (the CPUs)", name,
                        v, spool__omp_env.icv.nthreads);
        return;
    }
    for (unsigned long i = 0; i < n; i++)
        if (vals[i] > max) {
            spool__omp_warn("%s='%s': %lu threads is above the most a team can have here; "
                            "using %lu",
                            name, v, vals[i], max);
            vals[i] = max;
        }
    spool__omp_env.icv.nthreads = vals[0];
    if (n > 1) {
        spool__omp_env.nthreads_list = malloc(n * sizeof *vals);
        if (spool__omp_env.nthreads_list != NULL) {
            memcpy(spool__omp_env.nthreads_list, vals, n * sizeof *vals);
            spool__omp_env.nthreads_list_len = n;
        }
    }
}

static void parse_schedule(void)
{
    const char *v = spool__omp_getenv("OMP_SCHEDULE");
    if (v == NULL)
        return;
    const char *p = skip_space(v);
    int monotonic = 0;
    if (strncasecmp(p, "monotonic", 9) == 0) {
        monotonic = 1;
        p += 9;
    } else if (strncasecmp(p, "nonmonotonic", 12) == 0) {
        monotonic = -1;
        p += 12;
    }
    if (monotonic != 0) {
        p = skip_space(p);
        if (*p++ != ':')
            goto bad;
        p = skip_space(p);
    }
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"static", SPOOL_OMP_SCHED_STATIC},
                 {"dynamic", SPOOL_OMP_SCHED_DYNAMIC},
                 {"guided", SPOOL_OMP_SCHED_GUIDED},
                 {"auto", SPOOL_OMP_SCHED_AUTO}};
    int kind = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if (strncasecmp(p, kinds[i].name, len) == 0) {
            kind = kinds[i].kind;
            p += len;
            break;
        }
    }
    if (kind < 0)
        goto bad;
    p = skip_space(p);
    long chunk = kind == SPOOL_OMP_SCHED_STATIC ? 0 : 1;
    if (*p == ',') {
        unsigned long c;
        p++;
        if (kind == SPOOL_OMP_SCHED_AUTO || !parse_ulong(&p, &c) || c > INT_MAX)
            goto bad;
        chunk = c == 0 && kind != SPOOL_OMP_SCHED_STATIC ? 1 : (long)c;
    }
    if (*p != '\0')
        goto bad;
    if (monotonic == 1 || (monotonic == 0 && kind == SPOOL_OMP_SCHED_STATIC))
        kind |= SPOOL_OMP_SCHED_MONOTONIC;
    spool__omp_env.icv.run_sched = kind;
    spool__omp_env.icv.run_chunk = (int)chunk;
    return;
bad:
    spool__omp_warn("OMP_SCHEDULE='%s' is not [monotonic:|nonmonotonic:]static|dynamic|guided|"
                    "auto[,chunk]; using dynamic,1",
                    v);
}

static void parse_stacksize(void)
{
    const char *name = "OMP_STACKSIZE";
    const char *v = spool__omp_getenv(name);
    if (v == NULL) {
        name = "GOMP_STACKSIZE";
        v = spool__omp_getenv(name);
    }
    if (v == NULL)
        return;
    const char *p = v;
    unsigned long n;
    unsigned shift = 10; /* kilobytes without a suffix */
    if (!parse_ulong(&p, &n))
        goto bad;
    switch (tolower((unsigned char)*p)) {
    case 'b': shift = 0; p++; break;
    case 'k': shift = 10; p++; break;
    case 'm': shift = 20; p++; break;
    case 'g': shift = 30; p++; break;
    case '\0': break;
    default: goto bad;
    }
    if (*skip_space(p) != '\0' || n == 0 || n > (SIZE_MAX >> shift))
        goto bad;
    spool__omp_env.stack_size = (size_t)n << shift;
    return;
bad:
    spool__omp_warn("%s='%s' is not a size (a number, then B, K, M or G); using the system's "
                    "default stack",
                    name, v);
}

static void parse_wait_policy(void)
{
    const char *v = spool__omp_getenv("OMP_WAIT_POLICY");
    if (v == NULL)
        return;
    const char *p = skip_space(v);
    int r = -1;
    if (strncasecmp(p, "active", 6) == 0) {
        r = 1;
        p += 6;
    } else if (strncasecmp(p, "passive", 7) == 0) {
        r = 0;
        p += 7;
    }
    if (r < 0 || *skip_space(p) != '\0')
        spool__omp_warn("OMP_WAIT_POLICY='%s' is neither active nor passive; using the default",
                        v);
    else
        spool__omp_env.wait_policy = r;
}

static void parse_proc_bind(void)
{
    const char *v = spool__omp_getenv("OMP_PROC_BIND");
    if (v == NULL)
        return;
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"false", 0}, {"true", 1}, {"master", 2}, {"primary", 2},
                 {"close", 3}, {"spread", 4}};
    const char *p = skip_space(v);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if (strncasecmp(p, kinds[i].name, len) == 0) {
            /* The first of a list; spool places its workers itself
             * (SPOOL_PLACES), so binding is recorded, not applied. */
            spool__omp_env.icv.bind = kinds[i].kind;
            return;
        }
    }
    spool__omp_warn("OMP_PROC_BIND='%s' is not true, false, primary, master, close or spread; "
                    "using false",
                    v);
}

static void parse_allocator(void)
{
    const char *v = spool__omp_getenv("OMP_ALLOCATOR");
    if (v == NULL)
        return;
    static const struct {
        const char *name;
        uintptr_t handle;
    } names[] = {{"omp_default_mem_alloc", omp_default_mem_alloc},
                 {"omp_large_cap_mem_alloc", omp_large_cap_mem_alloc},
                 {"omp_const_mem_alloc", omp_const_mem_alloc},
                 {"omp_high_bw_mem_alloc", omp_high_bw_mem_alloc},
                 {"omp_low_lat_mem_alloc", omp_low_lat_mem_alloc},
                 {"omp_cgroup_mem_alloc", omp_cgroup_mem_alloc},
                 {"omp_pteam_mem_alloc", omp_pteam_mem_alloc},
                 {"omp_thread_mem_alloc", omp_thread_mem_alloc}};
    const char *p = skip_space(v);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t len = strlen(names[i].name);
        if (strncasecmp(p, names[i].name, len) == 0 && *skip_space(p + len) == '\0') {
            spool__omp_env.def_allocator = names[i].handle;
            return;
        }
    }
    spool__omp_warn("OMP_ALLOCATOR='%s' is not a predefined allocator; using "
                    "omp_default_mem_alloc",
                    v);
}

static void parse_display_env(void)
{
    const char *v = spool__omp_getenv("OMP_DISPLAY_ENV");
    if (v == NULL)
        return;
    const char *p = skip_space(v);
    if (strncasecmp(p, "verbose", 7) == 0 && *skip_space(p + 7) == '\0') {
        display_env = 2;
        return;
    }
    int b = parse_bool(v);
    if (b < 0)
        spool__omp_warn("OMP_DISPLAY_ENV='%s' is not true, false or verbose; using false", v);
    else
        display_env = (unsigned)b;
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
#endif
    return n > 0 ? (unsigned)n : 1;
}

static void env_once_init(void)
{
    spool__omp_env_t *e = &spool__omp_env;
    e->cpus = online_cpus();
    /* The most threads a team (and so the pool) may have: absurd requests
     * are refused before any thread is made. */
    unsigned long max = 64ul * e->cpus;
    if (max < 1024)
        max = 1024;
    if (max > SPOOL_MAX_THREADS)
        max = SPOOL_MAX_THREADS;
    e->max_threads = (unsigned)max;
    e->icv = (spool__omp_icv_t){.nthreads = e->cpus,
                                .thread_limit = UINT_MAX,
                                .max_active_levels = 1,
                                .run_sched = SPOOL_OMP_SCHED_DYNAMIC,
                                .run_chunk = 1,
                                .bind = 0,
                                .default_device = 0,
                                /* libgomp's: a team has the threads asked
                                 * for (spool__omp_dynamic has the
                                 * exception). */
                                .dyn = false};
    e->wait_policy = -1;
    const char *nt = spool__omp_getenv("OMP_NUM_THREADS");
    if (nt != NULL)
        parse_num_threads("OMP_NUM_THREADS", nt, max);
    else if ((nt = spool__omp_getenv("SPOOL_NUM_THREADS")) != NULL)
        parse_num_threads("SPOOL_NUM_THREADS", nt, max);
    parse_schedule();
    env_bool("OMP_DYNAMIC", &e->icv.dyn);
    env_bool("OMP_CANCELLATION", &e->cancellation);
    env_bool("OMP_DISPLAY_AFFINITY", &e->display_affinity);
    int limit = INT_MAX;
    if (env_int("OMP_THREAD_LIMIT", &limit, false))
        e->icv.thread_limit = (unsigned)limit;
    int levels = -1;
    if (spool__omp_getenv("OMP_MAX_ACTIVE_LEVELS") != NULL) {
        levels = (int)e->icv.max_active_levels;
        if (env_int("OMP_MAX_ACTIVE_LEVELS", &levels, true) &&
            (unsigned)levels > SUPPORTED_ACTIVE_LEVELS)
            levels = SUPPORTED_ACTIVE_LEVELS;
        e->icv.max_active_levels = (unsigned)levels;
    } else {
        bool nested = false;
        if (spool__omp_getenv("OMP_NESTED") != NULL) {
            env_bool("OMP_NESTED", &nested);
            e->icv.max_active_levels = nested ? SUPPORTED_ACTIVE_LEVELS : 1;
        } else if (e->nthreads_list_len > 1) {
            e->icv.max_active_levels = SUPPORTED_ACTIVE_LEVELS;
        }
    }
    parse_wait_policy();
    parse_stacksize();
    parse_proc_bind();
    env_int("OMP_DEFAULT_DEVICE", &e->icv.default_device, true);
    e->def_allocator = omp_default_mem_alloc;
    parse_allocator();
    int teams = 0, teams_limit = 0;
    env_int("OMP_NUM_TEAMS", &teams, false);
    env_int("OMP_TEAMS_THREAD_LIMIT", &teams_limit, false);
    atomic_store_explicit(&e->num_teams, teams, memory_order_relaxed);
    atomic_store_explicit(&e->teams_thread_limit, teams_limit, memory_order_relaxed);
    env_int("OMP_MAX_TASK_PRIORITY", &e->max_task_priority, true);
    parse_display_env();
    if (display_env != 0)
        display((int)display_env - 1);
}

void spool__omp_env_init(void)
{
    pthread_once(&env_once, env_once_init);
}

/* ---- the pool --------------------------------------------------------------------- */

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* The global pool sized for the environment's teams: thread 0 is the
 * encountering thread, so a team of n takes n - 1 workers; nested levels
 * multiply (OMP_NUM_THREADS=4,2 wants 4 x 2 threads at once). */
static void configure_global_pool(void)
{
    spool__omp_env_t *e = &spool__omp_env;
    unsigned long want = e->icv.nthreads;
    unsigned levels = e->icv.max_active_levels;
    for (unsigned long i = 1; i < e->nthreads_list_len && i < levels; i++)
        want = want * e->nthreads_list[i] > e->max_threads ? e->max_threads
                                                           : want * e->nthreads_list[i];
    if (want > e->icv.thread_limit)
        want = e->icv.thread_limit;
    spool_config_t config = SPOOL_CONFIG_INIT;
    config.num_threads = want > 1 ? (unsigned)(want - 1) : 1;
    config.stack_size = e->stack_size;
    int err = spool__global_init_team(&config);
    if (err != 0 && err != EALREADY)
        spool__omp_warn("cannot start a pool of %u workers (%s); regions run on one thread",
                        config.num_threads, spool_strerror(err));
}

spool_pool_t *spool__omp_pool(void)
{
    spool_pool_t *pool = spool__current_pool();
    if (pool != NULL)
        return pool;
    pthread_once(&pool_once, configure_global_pool);
    return spool__global_pool_get();
}

/* ---- omp_display_env ------------------------------------------------------------- */

static const char *sched_name(int kind)
{
    switch (kind & ~SPOOL_OMP_SCHED_MONOTONIC) {
    case SPOOL_OMP_SCHED_STATIC: return "STATIC";
    case SPOOL_OMP_SCHED_DYNAMIC: return "DYNAMIC";
    case SPOOL_OMP_SCHED_GUIDED: return "GUIDED";
    case SPOOL_OMP_SCHED_AUTO: return "AUTO";
    default: return "RUNTIME";
    }
}

static void display(int verbose)
{
    const spool__omp_env_t *e = &spool__omp_env;
    static const char *const binds[] = {"FALSE", "TRUE", "MASTER", "CLOSE", "SPREAD"};
    FILE *f = stderr;
    flockfile(f);
    fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", f);
    fputs("  _OPENMP = '201511'\n", f);
    fprintf(f, "  OMP_DYNAMIC = '%s'\n", e->icv.dyn ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NESTED = '%s'\n", e->icv.max_active_levels > 1 ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NUM_THREADS = '%lu", e->icv.nthreads);
    for (unsigned long i = 1; i < e->nthreads_list_len; i++)
        fprintf(f, ",%lu", e->nthreads_list[i]);
    fputs("'\n", f);
    int kind = e->icv.run_sched;
    bool monotonic = (kind & SPOOL_OMP_SCHED_MONOTONIC) != 0;
    int base = kind & ~SPOOL_OMP_SCHED_MONOTONIC;
    fprintf(f, "  OMP_SCHEDULE = '%s%s", monotonic && base != SPOOL_OMP_SCHED_STATIC ? "MONOTONIC:"
                                         : !monotonic && base == SPOOL_OMP_SCHED_STATIC
                                             ? "NONMONOTONIC:"
                                             : "",
            sched_name(kind));
    if (base != SPOOL_OMP_SCHED_AUTO &&
        e->icv.run_chunk != (base == SPOOL_OMP_SCHED_STATIC ? 0 : 1))
        fprintf(f, ",%d", e->icv.run_chunk);
    fputs("'\n", f);
    fprintf(f, "  OMP_PROC_BIND = '%s'\n", binds[e->icv.bind >= 0 && e->icv.bind <= 4 ? e->icv.bind : 0]);
    fputs("  OMP_PLACES = ''\n", f);
    fprintf(f, "  OMP_STACKSIZE = '%zu'\n", e->stack_size);
    fprintf(f, "  OMP_WAIT_POLICY = '%s'\n", e->wait_policy > 0 ? "ACTIVE" : "PASSIVE");
    fprintf(f, "  OMP_THREAD_LIMIT = '%u'\n", e->icv.thread_limit);
    fprintf(f, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", e->icv.max_active_levels);
    fprintf(f, "  OMP_NUM_TEAMS = '%d'\n", atomic_load_explicit(&e->num_teams, memory_order_relaxed));
    fprintf(f, "  OMP_TEAMS_THREAD_LIMIT = '%d'\n",
            atomic_load_explicit(&e->teams_thread_limit, memory_order_relaxed));
    fprintf(f, "  OMP_CANCELLATION = '%s'\n", e->cancellation ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_DEFAULT_DEVICE = '%d'\n", e->icv.default_device);
    fprintf(f, "  OMP_MAX_TASK_PRIORITY = '%d'\n", e->max_task_priority);
    fprintf(f, "  OMP_DISPLAY_AFFINITY = '%s'\n", e->display_affinity ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_AFFINITY_FORMAT = '%s'\n", spool__omp_affinity_format());
    static const char *const allocators[] = {
        "", "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
        "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
        "omp_pteam_mem_alloc", "omp_thread_mem_alloc"};
    fprintf(f, "  OMP_ALLOCATOR = '%s'\n",
            e->def_allocator < sizeof allocators / sizeof allocators[0]
                ? allocators[e->def_allocator]
                : "");
    static const char *const offload[] = {"DEFAULT", "MANDATORY", "DISABLED"};
    fprintf(f, "  OMP_TARGET_OFFLOAD = '%s'\n", offload[spool__omp_target_offload()]);
    if (verbose) {
        fprintf(f, "  SPOOL_OMP_CPUS = '%u'\n", e->cpus);
        fprintf(f, "  SPOOL_OMP_MAX_THREADS = '%u'\n", e->max_threads);
        fprintf(f, "  SPOOL_VERSION = '%u'\n", spool_version());
    }
    fputs("OPENMP DISPLAY ENVIRONMENT END\n", f);
    funlockfile(f);
}

SPOOL_OMP_API void omp_display_env(int verbose)
{
    spool__omp_env_init();
    display(verbose);
}
