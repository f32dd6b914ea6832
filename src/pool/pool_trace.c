/* A pool's timeline: starting and stopping its trace, writing it, and
 * SPOOL_TRACE (trace/trace.md).  Reading the rings and naming functions is
 * trace/read.c's; the two formats are trace/trace_write.c's. */
#include "trace/trace_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheduler/worker.h"

#if SPOOL__TRACE_ENABLED

static int trace_start_locked(spool_pool_t *pool, size_t records_per_worker)
{
    spool__trace_state_t *s = &pool->trace;
    /* Relaxed: current is only written under the lock the caller holds. */
    if (atomic_load_explicit(&s->current, memory_order_relaxed) != NULL)
        return EALREADY;
    spool__trace_clock_init();
    spool__trace_t *t = spool__trace_new(pool->num_slots, records_per_worker);
    if (t == NULL)
        return ENOMEM;
    spool__trace_clock_pair(&t->start_ticks, &t->start_ns);
    t->older = s->last;
    s->last = t;
    /* Release pairs with the acquire load in spool__trace_current: a worker
     * that sees t sees its rings zeroed and the clock chosen. */
    atomic_store_explicit(&s->current, t, memory_order_release);
    return 0;
}

static int check_pool(spool_pool_t *pool)
{
    if (pool == NULL)
        return EINVAL;
    return spool__pool_check_fork(pool);
}

int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    if (records_per_worker == 0)
        return EINVAL;
    pthread_mutex_lock(&pool->trace.lock);
    err = trace_start_locked(pool, records_per_worker);
    pthread_mutex_unlock(&pool->trace.lock);
    return err;
}

int spool_pool_trace_stop(spool_pool_t *pool)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    spool__trace_state_t *s = &pool->trace;
    pthread_mutex_lock(&s->lock);
    /* Relaxed: current is only written under this lock. */
    spool__trace_t *t = atomic_load_explicit(&s->current, memory_order_relaxed);
    if (t == NULL) {
        err = EALREADY;
    } else {
        t->stop_ticks = spool__trace_now();
        /* Relaxed: workers only compare the pointer with theirs; a worker
         * still recording into t is harmless (trace.md). */
        atomic_store_explicit(&s->current, NULL, memory_order_relaxed);
        for (unsigned i = 0; i < t->num_workers; i++)
            /* Relaxed: only the count is kept here; trace_write's copy
             * acquires the records it reads. */
            t->stop_written[i] = atomic_load_explicit(&t->rings[i].written, memory_order_relaxed);
        t->stopped = true;
    }
    pthread_mutex_unlock(&s->lock);
    return err;
}

/* ---- writing ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A trace's file name: its format is its extension. */
static bool trace_path_html(const char *path)
{
    return ends_with(path, ".html") || ends_with(path, ".htm");
}

static bool trace_path_ok(const char *path)
{
    return trace_path_html(path) || ends_with(path, ".json");
}

int spool_pool_trace_write(spool_pool_t *pool, const char *path)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    if (path == NULL)
        return EINVAL;
    if (!trace_path_ok(path))
        return EINVAL;
    bool html = trace_path_html(path);
    pthread_mutex_lock(&pool->trace.lock);
    spool__trace_t *t = pool->trace.last;
    spool__snapshot_t snap;
    if (t == NULL) {
        err = EINVAL; /* nothing was ever traced */
    } else {
        err = spool__trace_snapshot(t, pool->thread_name, pool->num_threads, &snap);
        if (err == 0)
            err = spool__snapshot_resolve_names(&snap);
        if (err == 0)
            err = html ? spool__trace_write_html(&snap, path) : spool__trace_write_json(&snap, path);
        spool__snapshot_free(&snap);
    }
    pthread_mutex_unlock(&pool->trace.lock);
    return err;
}

/* ---- SPOOL_TRACE ----------------------------------------------------------- */

static atomic_uint traced_pools; /* numbers %n */

/* SPOOL_TRACE's path with %p (the process id) and %n (the pool's number
 * among the traced pools of the process, from 0) substituted. */
static char *expand_path(const char *pattern)
{
    size_t cap = strlen(pattern) + 64;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (const char *p = pattern; *p != '\0'; p++) {
        char num[24] = "";
        if (p[0] == '%' && p[1] == 'p')
            snprintf(num, sizeof num, "%ld", (long)getpid());
        else if (p[0] == '%' && p[1] == 'n')
            snprintf(num, sizeof num, "%u",
                     atomic_fetch_add_explicit(&traced_pools, 1, memory_order_relaxed));
        if (num[0] != '\0') {
            size_t len = strlen(num);
            if (n + len + 1 > cap)
                break;
            memcpy(out + n, num, len);
            n += len;
            p++;
        } else if (n + 2 <= cap) {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    return out;
}

static size_t env_records(void)
{
    const char *env = getenv("SPOOL_TRACE_RECORDS");
    if (env != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno == 0 && end != env && *end == '\0' && env[0] != '-' && v > 0 && v <= SIZE_MAX)
            return (size_t)v;
    }
    return (size_t)1 << 16;
}

int spool__trace_init(spool_pool_t *pool)
{
    spool__trace_state_t *s = &pool->trace;
    atomic_init(&s->current, NULL);
    s->last = NULL;
    s->env_path = NULL;
    int err = pthread_mutex_init(&s->lock, NULL);
    if (err != 0)
        return err;
    const char *env = getenv("SPOOL_TRACE");
    if (env == NULL || env[0] == '\0')
        return 0;
    if (!trace_path_ok(env)) {
        /* Said now, not after the whole run when the file would be
         * written. */
        fprintf(stderr, "spool: SPOOL_TRACE=%s: the name must end in .json, .html or .htm: "
                        "no trace is recorded\n",
                env);
        return 0;
    }
    s->env_path = expand_path(env);
    err = s->env_path == NULL ? ENOMEM : trace_start_locked(pool, env_records());
    if (err != 0) {
        /* The pool works without its timeline; say why there is none. */
        fprintf(stderr, "spool: SPOOL_TRACE=%s: %s\n", env, spool_strerror(err));
        free(s->env_path);
        s->env_path = NULL;
    }
    return 0;
}

void spool__trace_finish(spool_pool_t *pool)
{
    const char *path = pool->trace.env_path;
    if (path == NULL)
        return;
    int err = spool_pool_trace_write(pool, path);
    if (err != 0)
        fprintf(stderr, "spool: SPOOL_TRACE: cannot write %s: %s\n", path, spool_strerror(err));
}

void spool__trace_destroy(spool_pool_t *pool)
{
    spool__trace_state_t *s = &pool->trace;
    for (spool__trace_t *t = s->last; t != NULL;) {
        spool__trace_t *older = t->older;
        spool__trace_free(t);
        t = older;
    }
    free(s->env_path);
    pthread_mutex_destroy(&s->lock);
}

#else /* !SPOOL__TRACE_ENABLED */

int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker)
{
    (void)records_per_worker;
    return pool == NULL ? EINVAL : ENOTSUP;
}

int spool_pool_trace_stop(spool_pool_t *pool)
{
    return pool == NULL ? EINVAL : ENOTSUP;
}

int spool_pool_trace_write(spool_pool_t *pool, const char *path)
{
    return pool == NULL || path == NULL ? EINVAL : ENOTSUP;
}

int spool__trace_init(spool_pool_t *pool)
{
    const char *env = getenv("SPOOL_TRACE");
    if (env != NULL && env[0] != '\0')
        fprintf(stderr, "spool: SPOOL_TRACE=%s: %s\n", env, spool_strerror(ENOTSUP));
    (void)pool;
    return 0;
}

void spool__trace_finish(spool_pool_t *pool)
{
    (void)pool;
}

void spool__trace_destroy(spool_pool_t *pool)
{
    (void)pool;
}

#endif
