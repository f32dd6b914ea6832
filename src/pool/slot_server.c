/* The caller slot's server (caller.md, "The slot's server"): a thread of
 * the pool's own that runs the slot's broadcasts while nobody holds the
 * slot, so that the slot's index runs beside the workers' even when every
 * worker is busy (with a run that waits for the slot's, say). */
#include <pthread.h>

#include "pool/caller.h"
#include "scheduler/worker.h"

static void *server_main(void *arg)
{
    spool_pool_t *pool = arg;
    spool__worker_name_thread(pool, pool->num_threads); /* the slot's index */
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->broadcast_lock);
    for (;;) {
        while (pool->slot_posted == seen && !pool->slot_stop)
            pthread_cond_wait(&pool->slot_cond, &pool->broadcast_lock);
        if (pool->slot_stop)
            break;
        seen = pool->slot_posted;
        pthread_mutex_unlock(&pool->broadcast_lock);
        /* The lock ordered the queuing before this look.  A held slot is
         * its holder's to serve (its waits, its leave's look after the
         * ReleaseFence that the look's ServerFence pairs with); a free one
         * may be taken by a caller first, which then serves it likewise. */
        spool__worker_t *slot = &pool->workers[pool->num_threads];
        if (spool__slot_server_look(&pool->caller_taken, &slot->broadcasts))
            (void)spool__caller_serve(pool); /* runs them, and looks again */
        pthread_mutex_lock(&pool->broadcast_lock);
    }
    pthread_mutex_unlock(&pool->broadcast_lock);
    return NULL;
}

void spool__slot_server_post(spool_pool_t *pool)
{
    /* Relaxed: its writer holds the same lock. */
    if (!atomic_load_explicit(&pool->slot_started, memory_order_relaxed)) {
        /* Without a server (no thread to be had) the workers serve the
         * slot, only not beside their own runs (caller.md, H6). */
        if (pthread_create(&pool->slot_thread, NULL, server_main, pool) != 0)
            return;
        /* Relaxed: read under the lock (caller.c's service), or as a hint. */
        atomic_store_explicit(&pool->slot_started, true, memory_order_relaxed);
    }
    pool->slot_posted++;
    pthread_cond_signal(&pool->slot_cond);
}

void spool__slot_server_stop(spool_pool_t *pool)
{
    pthread_mutex_lock(&pool->broadcast_lock);
    bool started = atomic_load_explicit(&pool->slot_started, memory_order_relaxed);
    pool->slot_stop = true;
    pthread_cond_signal(&pool->slot_cond);
    pthread_mutex_unlock(&pool->broadcast_lock);
    if (started)
        pthread_join(pool->slot_thread, NULL);
}
