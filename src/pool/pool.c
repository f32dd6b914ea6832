/* A pool: creation and destruction, the count of work that keeps it
 * running, reference counting, statistics, and work from outside (the
 * injector and spool_pool_install).  See pool.h. */
#include "scheduler/pool.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/places.h"
#include "platform/test_hooks.h"
#include "platform/tuning.h"
#include "pool/caller.h"
#include "scheduler/worker.h"

atomic_uint spool__fork_generation;

static void *aligned_zalloc(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, SPOOL__CACHE_LINE, size) != 0)
        return NULL;
    memset(p, 0, size);
    return p;
}

/* Sets every worker's terminate latch; sleeping workers are woken. */
static void terminate_workers(spool_pool_t *pool, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (spool__core_latch_set(&pool->workers[i].terminate))
            spool__sleep_notify_worker_latch_is_set(&pool->sleep, i);
}

static void join_workers(spool_pool_t *pool, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        pthread_join(pool->workers[i].thread, NULL);
}

/* ---- lifecycle --------------------------------------------------------- */

int spool__pool_add_work_external(spool_pool_t *pool)
{
    size_t old = atomic_load_explicit(&pool->lifecycle, memory_order_relaxed);
    do {
        if (old & SPOOL__DESTROYING)
            return ECANCELED;
        SPOOL__COUNT(rmw_counts);
        /* Relaxed: only the count matters, and RMWs on one word are totally
         * ordered: either destroy's RMW sees our increment and waits for the
         * job, or we see its DESTROYING bit. */
    } while (!atomic_compare_exchange_weak_explicit(&pool->lifecycle, &old, old + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    return 0;
}

void spool__pool_work_done(spool_pool_t *pool)
{
    /* Acq_rel pairs with the other decrements and destroy's RMW, so that
     * whoever sees zero has seen all the counted work finish. */
    SPOOL__COUNT(rmw_counts);
    size_t old = atomic_fetch_sub_explicit(&pool->lifecycle, 1, memory_order_acq_rel);
    if ((old & SPOOL__WORK_MASK) == 1)
        terminate_workers(pool, pool->num_threads);
}

void spool__pool_ref(spool_pool_t *pool)
{
    /* Relaxed: the caller holds a reference already (the pool is alive). */
    atomic_fetch_add_explicit(&pool->refs, 1, memory_order_relaxed);
}

static void pool_free(spool_pool_t *pool, unsigned num_workers)
{
    if (pool->trace_ready)
        spool__trace_destroy(pool);
    for (unsigned i = 0; i < num_workers; i++)
        spool__worker_destroy(&pool->workers[i]);
    free(pool->workers);
    pthread_cond_destroy(&pool->slot_cond);
    pthread_mutex_destroy(&pool->broadcast_lock);
    spool__block_depot_destroy(&pool->blocks);
    spool__block_depot_destroy(&pool->task_blocks);
    spool__job_pool_destroy(&pool->job_pool);
    spool__injector_destroy(&pool->injector);
    spool__sleep_destroy(&pool->sleep);
    free(pool->cpus);
    free(pool);
}

void spool__pool_unref(spool_pool_t *pool)
{
    /* Acq_rel: the last one out sees every other holder's use finished. */
    if (atomic_fetch_sub_explicit(&pool->refs, 1, memory_order_acq_rel) == 1)
        pool_free(pool, pool->num_threads + 1);
}

/* The pool's sleep state lives as long as the pool (sleep.h's keeper). */
static void keep_sleep(void *pool)
{
    spool__pool_ref(pool);
}

static void release_sleep(void *pool)
{
    spool__pool_unref(pool);
}

/* ---- creation and destruction ------------------------------------------ */

/* Threads per CPU above which SPOOL_NUM_THREADS is taken for a mistake:
 * thousands of threads take seconds to start and serve no one. */
#define ENV_THREADS_PER_CPU 64

static long online_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? cpus : 1;
}

/* One line on stderr for a bad value of an environment variable, once per
 * variable and process (a program may make many pools). */
static void env_report(_Atomic bool *said, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void env_report(_Atomic bool *said, const char *fmt, ...)
{
    /* Relaxed: a flag that only keeps the line from repeating. */
    if (atomic_exchange_explicit(said, true, memory_order_relaxed))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static _Atomic bool said_threads, said_places;

static int resolve_num_threads(const spool_config_t *config, unsigned *out)
{
    unsigned long n = config->num_threads;
    if (n == 0) {
        const char *env = getenv("SPOOL_NUM_THREADS");
        long cpus = online_cpus();
        if (env != NULL && *env != '\0') {
            char *end;
            errno = 0;
            unsigned long v = strtoul(env, &end, 10);
            if (errno != 0 || end == env || *end != '\0' || env[0] == '-' || v == 0)
                env_report(&said_threads,
                           "spool: SPOOL_NUM_THREADS=%s is not a positive whole number: using "
                           "%ld (the online CPUs)\n",
                           env, cpus);
            else if (v > SPOOL_MAX_THREADS || v > (unsigned long)cpus * ENV_THREADS_PER_CPU)
                env_report(&said_threads,
                           "spool: SPOOL_NUM_THREADS=%s is more than 64 threads a CPU: using "
                           "%ld (the online CPUs)\n",
                           env, cpus);
            else
                n = v;
        }
        if (n == 0)
            n = (unsigned long)cpus;
    }
    if (n > SPOOL_MAX_THREADS)
        return EINVAL;
    *out = (unsigned)n;
    return 0;
}

static spool__test_countdown_t fail_pool_step;

int spool__test_fail_pool_step(int nth)
{
    return spool__test_countdown_arm(&fail_pool_step, nth);
}

/* A step of pool_new: expr's result (0 or an errno value), or ENOMEM
 * without running it when a test makes this step fail (test_hooks.h). */
#define STEP(expr) (spool__test_countdown_hit(&fail_pool_step) ? ENOMEM : (expr))

/* Threads that run beside the workers of the next pool this thread
 * creates, counted when the pool decides whether it has more threads than
 * CPUs (spool__global_init_team). */
static _Thread_local unsigned creator_runs;

void spool__pool_creator_runs(unsigned n)
{
    creator_runs = n;
}

static int pool_new(const spool_config_t *config, unsigned n, bool lend_slot, bool env_places,
                    spool_pool_t **out)
{
    spool_pool_t *pool = aligned_zalloc(sizeof *pool);
    if (pool == NULL)
        return ENOMEM;
    /* n workers and the caller slot, which is not idle while free.  Each
     * step that fails undoes the ones before it (the ladder below); once
     * the workers' array exists, pool_free undoes everything. */
    int err;
    if ((err = STEP(spool__sleep_init(&pool->sleep, n + 1, n))) != 0)
        goto no_sleep;
    spool__sleep_set_rounds(&pool->sleep, n + creator_runs, spool__places_cpu_count());
    spool__sleep_set_keeper(&pool->sleep, keep_sleep, release_sleep, pool);
    if ((err = STEP(spool__injector_init(&pool->injector))) != 0)
        goto no_injector;
    if ((err = STEP(spool__job_pool_init(&pool->job_pool))) != 0)
        goto no_job_pool;
    if ((err = STEP(spool__block_depot_init(&pool->blocks, n))) != 0)
        goto no_blocks;
    if ((err = STEP(spool__block_depot_init(&pool->task_blocks, n))) != 0)
        goto no_task_blocks;
    if ((err = STEP(pthread_mutex_init(&pool->broadcast_lock, NULL))) != 0)
        goto no_broadcast_lock;
    if ((err = STEP(pthread_cond_init(&pool->slot_cond, NULL))) != 0)
        goto no_slot_cond;
    /* The global pool lends its slot, unless its workers' stacks have a
     * size of their own or its threads a start handler: then its roots stay
     * on threads made and set up for them. */
    bool lends = lend_slot && config->stack_size == 0 && config->start_handler == NULL;
    pool->num_slots = lends ? n + 1 : n; /* before the workers: they read it */
    /* The workers, and the caller slot's (index n: caller.h). */
    unsigned built = 0;
    pool->workers = STEP(0) ? NULL : aligned_zalloc((n + 1) * sizeof *pool->workers);
    if (pool->workers == NULL) {
        err = ENOMEM;
        goto no_workers;
    }
    for (; built <= n; built++)
        if ((err = STEP(spool__worker_init(&pool->workers[built], pool, built))) != 0)
            goto no_workers;
    pool->num_threads = n;
    /* The caller slot's holder is never lent (lend.h). */
    atomic_init(&pool->workers[n].dock, SPOOL__DOCK_BUSY);
    atomic_init(&pool->caller_taken, 0);
    atomic_init(&pool->slot_started, false);
    pool->slot_service = lends ? &spool__caller_service : NULL;
    atomic_init(&pool->lifecycle, 1);
    atomic_init(&pool->refs, 1);
    pool->stack_size = config->stack_size;
    pool->start_handler = config->start_handler;
    pool->exit_handler = config->exit_handler;
    pool->handler_ctx = config->handler_ctx;
    pool->fork_generation = atomic_load_explicit(&spool__fork_generation, memory_order_relaxed);
    snprintf(pool->thread_name, sizeof pool->thread_name, "%s",
             config->thread_name != NULL ? config->thread_name : "spool");
    const char *places =
        config->places != NULL ? config->places : env_places ? getenv("SPOOL_PLACES") : NULL;
    if ((err = STEP(spool__places_parse(places, &pool->cpus, &pool->num_cpus))) != 0)
        goto no_workers;
    if ((err = STEP(spool__trace_init(pool))) != 0)
        goto no_workers;
    pool->trace_ready = true;
    *out = pool;
    return 0;

no_workers:
    pool_free(pool, built);
    return err;
no_slot_cond:
    pthread_mutex_destroy(&pool->broadcast_lock);
no_broadcast_lock:
    spool__block_depot_destroy(&pool->task_blocks);
no_task_blocks:
    spool__block_depot_destroy(&pool->blocks);
no_blocks:
    spool__job_pool_destroy(&pool->job_pool);
no_job_pool:
    spool__injector_destroy(&pool->injector);
no_injector:
    spool__sleep_destroy(&pool->sleep);
no_sleep:
    free(pool);
    return err;
}

static int start_workers(spool_pool_t *pool)
{
    pthread_attr_t attr;
    int err = pthread_attr_init(&attr);
    if (err != 0)
        return err;
    if (pool->stack_size != 0)
        err = pthread_attr_setstacksize(&attr, pool->stack_size);
    unsigned started = 0;
    while (err == 0 && started < pool->num_threads) {
        err = spool__test_thread_create_error();
        if (err == 0 && pool->cpus != NULL)
            err = spool__places_pin(&attr, pool->cpus[started % pool->num_cpus]);
        if (err == 0)
            err = pthread_create(&pool->workers[started].thread, &attr, spool__worker_main,
                                 &pool->workers[started]);
        if (err == 0)
            started++;
    }
    pthread_attr_destroy(&attr);
    if (err != 0) {
        /* Refuse outside submissions from here on, as destroy does. */
        atomic_fetch_or_explicit(&pool->lifecycle, SPOOL__DESTROYING, memory_order_relaxed);
        terminate_workers(pool, started);
        join_workers(pool, started);
    }
    return err;
}

/* The size of the first config layout: every field up to handler_ctx. */
#define CONFIG_FIRST_SIZE (offsetof(spool_config_t, handler_ctx) + sizeof(void *))

/* Copies the caller's config (of whatever size its spool.h gave it) into
 * the layout this library knows.  0 or EINVAL. */
static int read_config(const spool_config_t *in, spool_config_t *out)
{
    memset(out, 0, sizeof *out);
    if (in == NULL)
        return 0;
    size_t size = in->size == 0 ? CONFIG_FIRST_SIZE : in->size;
    if (size < CONFIG_FIRST_SIZE || size > 4096) /* 4096: not a size, garbage */
        return EINVAL;
    memcpy(out, in, size < sizeof *out ? size : sizeof *out);
    /* A newer caller's fields we do not know: only zeros (defaults) are
     * safe to ignore. */
    for (size_t i = sizeof *out; i < size; i++)
        if (((const unsigned char *)in)[i] != 0)
            return EINVAL;
    out->size = sizeof *out;
    return 0;
}

int spool_pool_create(const spool_config_t *user_config, spool_pool_t **out)
{
    return spool__pool_create(user_config, false, out);
}

static int pool_create(const spool_config_t *user_config, bool lend_slot, bool env_places,
                       spool_pool_t **out)
{
    spool__tuning_init();
    if (out == NULL)
        return EINVAL;
    spool__register_atfork();
    spool_config_t copy;
    int err = read_config(user_config, &copy);
    if (err != 0)
        return err;
    const spool_config_t *config = &copy;
    unsigned n;
    err = resolve_num_threads(config, &n);
    if (err != 0)
        return err;
    spool_pool_t *pool;
    err = pool_new(config, n, lend_slot, env_places, &pool);
    if (err != 0)
        return err;
    err = start_workers(pool);
    if (err != 0) {
        pool_free(pool, n + 1);
        return err;
    }
    *out = pool;
    return 0;
}

int spool__pool_create(const spool_config_t *user_config, bool lend_slot, spool_pool_t **out)
{
    return pool_create(user_config, lend_slot, true, out);
}

int spool__pool_create_from_env(spool_pool_t **out)
{
    bool env_places = true;
    const char *env = getenv("SPOOL_PLACES");
    if (env != NULL) {
        int *cpus;
        unsigned count;
        int err = spool__places_parse(env, &cpus, &count);
        free(cpus);
        if (err == EINVAL) {
            env_report(&said_places,
                       "spool: SPOOL_PLACES=%s is not \"cores\" or a list of CPUs this process "
                       "may use (such as \"0-3,8\"): the workers are not pinned\n",
                       env);
            env_places = false;
        }
    }
    return pool_create(NULL, true, env_places, out);
}

int spool_pool_destroy(spool_pool_t *pool)
{
    if (pool == NULL)
        return EINVAL;
    int err = spool__pool_check_fork(pool);
    if (err != 0)
        return err; /* no threads to join; the memory is abandoned */
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool)
        return EDEADLK;
    /* Drop the handle's count and forbid outside submissions in one RMW.
     * Acq_rel: as in spool__pool_work_done. */
    size_t old = atomic_fetch_add_explicit(&pool->lifecycle, SPOOL__DESTROYING - 1,
                                           memory_order_acq_rel);
    if ((old & SPOOL__WORK_MASK) == 1)
        terminate_workers(pool, pool->num_threads);
    join_workers(pool, pool->num_threads);
    spool__slot_server_stop(pool);
    spool__trace_finish(pool); /* SPOOL_TRACE's file */
    spool__pool_unref(pool);
    return 0;
}

int spool_pool_worker_cpu(const spool_pool_t *pool, unsigned index, int *cpu)
{
    if (pool == NULL || cpu == NULL || index >= pool->num_threads)
        return EINVAL;
    *cpu = pool->cpus != NULL ? pool->cpus[index % pool->num_cpus] : -1;
    return 0;
}

unsigned spool_pool_num_threads(const spool_pool_t *pool)
{
    return pool != NULL ? pool->num_threads : 0;
}

int spool_pool_stats(const spool_pool_t *pool, unsigned index, spool_worker_stats_t *out,
                     size_t out_size)
{
    if (pool == NULL || out == NULL || index >= pool->num_slots ||
        out_size < sizeof out->jobs_executed)
        return EINVAL;
#ifdef SPOOL_STATS
    const spool__worker_t *w = &pool->workers[index];
    const spool__worker_sleep_t *ws = &pool->sleep.workers[index];
    spool_worker_stats_t st;
    /* Relaxed: statistics order nothing (see SPOOL__STAT_INC). */
    st.jobs_executed = atomic_load_explicit(&w->stats.jobs_executed, memory_order_relaxed);
    st.steals = atomic_load_explicit(&w->stats.steals, memory_order_relaxed);
    st.failed_steals = atomic_load_explicit(&w->stats.failed_steals, memory_order_relaxed);
    st.wakeups_sent = atomic_load_explicit(&w->stats.wakeups_sent, memory_order_relaxed);
    st.sleeps = atomic_load_explicit(&ws->sleeps, memory_order_relaxed);
    st.wakeups_received = atomic_load_explicit(&ws->wakeups_received, memory_order_relaxed);
    st.jobs_dropped = atomic_load_explicit(&w->jobs_dropped, memory_order_relaxed);
    st.jobs_run_at_spawn = atomic_load_explicit(&w->jobs_run_at_spawn, memory_order_relaxed);
    st.yields = atomic_load_explicit(&w->stats.yields, memory_order_relaxed);
    st.lock_waits = atomic_load_explicit(&w->stats.lock_waits, memory_order_relaxed);
    st.wake_probes = atomic_load_explicit(&w->stats.wake_probes, memory_order_relaxed);
    st.rmw_sleep = atomic_load_explicit(&w->stats.rmw_sleep, memory_order_relaxed);
    st.rmw_counts = atomic_load_explicit(&w->stats.rmw_counts, memory_order_relaxed);
    st.rmw_queues = atomic_load_explicit(&w->stats.rmw_queues, memory_order_relaxed);
    st.rmw_deques = atomic_load_explicit(&w->stats.rmw_deques, memory_order_relaxed);
    /* No more than the caller's struct holds; zeros past what we know. */
    size_t n = out_size < sizeof st ? out_size : sizeof st;
    memcpy(out, &st, n);
    if (out_size > n)
        memset((char *)out + n, 0, out_size - n);
    return 0;
#else
    return ENOTSUP;
#endif
}
