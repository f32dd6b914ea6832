/* Latches: the out-of-line parts (see latch.h). */
#include "latch.h"

#include "registry.h"

void spool__spin_latch_set(spool__spin_latch_t *l)
{
    /* Copy what we need first: once set, the owner may return and free l. */
    spool_pool_t *reg = l->owner->registry;
    unsigned target = l->owner->index;
    if (l->cross) {
        /* The owner's pool may also be destroyed once it returns: hold it. */
        spool__registry_ref(reg);
        if (spool__core_latch_set(&l->core))
            spool__sleep_notify_worker_latch_is_set(&reg->sleep, target);
        spool__registry_unref(reg);
    } else if (spool__core_latch_set(&l->core)) {
        spool__sleep_notify_worker_latch_is_set(&reg->sleep, target);
    }
}

int spool__lock_latch_init(spool__lock_latch_t *l)
{
    int err = pthread_mutex_init(&l->lock, NULL);
    if (err != 0)
        return err;
    err = pthread_cond_init(&l->cond, NULL);
    if (err != 0) {
        pthread_mutex_destroy(&l->lock);
        return err;
    }
    l->is_set = false;
    return 0;
}

void spool__lock_latch_destroy(spool__lock_latch_t *l)
{
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
}

void spool__lock_latch_set(spool__lock_latch_t *l)
{
    /* The waiter needs the mutex to see is_set and return, so it cannot free
     * l before we unlock; after that we do not touch l. */
    pthread_mutex_lock(&l->lock);
    l->is_set = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

void spool__lock_latch_wait(spool__lock_latch_t *l)
{
    pthread_mutex_lock(&l->lock);
    while (!l->is_set)
        pthread_cond_wait(&l->cond, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

int spool__count_latch_init(spool__count_latch_t *l, spool__worker_t *owner, bool cross)
{
    atomic_init(&l->counter, 1);
    l->blocking = owner == NULL;
    if (l->blocking)
        return spool__lock_latch_init(&l->lock);
    spool__spin_latch_init(&l->spin, owner, cross);
    return 0;
}

void spool__count_latch_destroy(spool__count_latch_t *l)
{
    if (l->blocking)
        spool__lock_latch_destroy(&l->lock);
}

void spool__count_latch_set(spool__count_latch_t *l)
{
    /* Acq_rel pairs with the other decrements: the one that reaches zero has
     * seen every counted job finish, and its latch set publishes that. */
    if (atomic_fetch_sub_explicit(&l->counter, 1, memory_order_acq_rel) != 1)
        return;
    if (l->blocking)
        spool__lock_latch_set(&l->lock);
    else
        spool__spin_latch_set(&l->spin);
}

void spool__count_latch_wait(spool__count_latch_t *l, spool__worker_t *owner)
{
    spool__count_latch_set(l);
    if (l->blocking)
        spool__lock_latch_wait(&l->lock);
    else
        spool__worker_wait_until(owner, &l->spin.core);
}
