/* The global pool (the one calls from outside any pool run in, started on
 * first use), the fork handlers, and the calls that ask about the calling
 * thread's pool. */
#include "pool/global.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/lend.h"
#include "scheduler/pool.h"
#include "scheduler/worker.h"

/* ---- fork ---------------------------------------------------------------- */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(spool_pool_t *) global_pool;
static bool global_failed; /* guarded by global_lock: first use could not start it */

/* The parent's global pool, abandoned in the child but kept referenced: it
 * is not a leak but memory that cannot be freed safely.  Not static: a
 * static that is only written would be optimised away. */
spool_pool_t *spool__abandoned_global_pool;

/* Hold the global lock across fork() so that the child gets it unlocked and
 * consistent. */
static void atfork_prepare(void)
{
    pthread_mutex_lock(&global_lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&global_lock);
}

/* The child has one thread: every pool's workers are gone.  Forget the
 * global pool (its memory is abandoned: its locks may be held by threads that
 * no longer exist) and retire every existing pool. */
static void atfork_child(void)
{
    /* Relaxed: the child has a single thread. */
    spool_pool_t *old = atomic_exchange_explicit(&global_pool, NULL, memory_order_relaxed);
    if (old != NULL)
        spool__abandoned_global_pool = old;
    global_failed = false;
    atomic_fetch_add_explicit(&spool__fork_generation, 1, memory_order_relaxed);
    spool__worker_leave();
    pthread_mutex_unlock(&global_lock);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void register_atfork_once(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void spool__register_atfork(void)
{
    pthread_once(&atfork_once, register_atfork_once);
}

/* ---- the global pool --------------------------------------------------- */

/* The global pool is never destroyed: SPOOL_TRACE's file is written at exit
 * (the workers may still be running; trace.md says why that is safe). */
static void write_global_trace(void)
{
    /* Acquire pairs with the release stores below: the pool is initialised. */
    spool_pool_t *pool = atomic_load_explicit(&global_pool, memory_order_acquire);
    if (pool != NULL)
        spool__trace_finish(pool);
}

static void global_pool_started(spool_pool_t *pool)
{
    static bool registered; /* guarded by global_lock */
    if (pool->trace.env_path != NULL && !registered) {
        registered = true;
        atexit(write_global_trace);
    }
}

spool_pool_t *spool__global_pool(void)
{
    /* Acquire pairs with the release stores below: the pool is initialised. */
    spool_pool_t *pool = atomic_load_explicit(&global_pool, memory_order_acquire);
    if (SPOOL__LIKELY(pool != NULL))
        return pool;
    pthread_mutex_lock(&global_lock);
    pool = atomic_load_explicit(&global_pool, memory_order_relaxed);
    if (pool == NULL && !global_failed) {
        int err = spool__pool_create_from_env(&pool);
        if (err == 0) {
            /* Release pairs with the acquire load above. */
            atomic_store_explicit(&global_pool, pool, memory_order_release);
            global_pool_started(pool);
        } else {
            global_failed = true;
            /* Never a program run on one thread without a word. */
            fprintf(stderr,
                    "spool: the global pool could not start (%s): calls from outside any "
                    "pool run on the calling thread alone\n",
                    spool_strerror(err));
        }
    }
    pthread_mutex_unlock(&global_lock);
    return pool;
}

int spool__global_init_team(const spool_config_t *config)
{
    spool__pool_creator_runs(1);
    int err = spool_global_init(config);
    spool__pool_creator_runs(0);
    return err;
}

int spool_global_init(const spool_config_t *config)
{
    pthread_mutex_lock(&global_lock);
    int err = EALREADY;
    if (atomic_load_explicit(&global_pool, memory_order_relaxed) == NULL) {
        spool_pool_t *pool;
        err = spool__pool_create(config, true, &pool);
        if (err == 0) {
            /* Release pairs with the acquire load in spool__global_pool. */
            atomic_store_explicit(&global_pool, pool, memory_order_release);
            global_failed = false;
            global_pool_started(pool);
        }
    }
    pthread_mutex_unlock(&global_lock);
    return err;
}

int spool_current_thread_index(void)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL ? (int)w->index : -1;
}

unsigned spool_current_num_threads(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w != NULL)
        return w->pool->num_slots;
    spool_pool_t *global = spool__global_pool();
    return global != NULL ? global->num_slots : 1;
}

/* For libspool-omp (scheduler/lend.h's hooks). */
spool_pool_t *spool__global_pool_get(void)
{
    return spool__global_pool();
}
