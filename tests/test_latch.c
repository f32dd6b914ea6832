/* Latches: the core latch's states, and lock, spin and count latches across
 * threads (a sleeping owner is woken by the set, and only then returns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "sleep/latch.h"
#include "scheduler/worker.h"
#include "test_util.h"

static void test_core_latch_states(void **state)
{
    (void)state;
    spool__core_latch_t l;
    spool__core_latch_init(&l);
    assert_false(spool__core_latch_probe(&l));
    /* Setting an UNSET or SLEEPY latch needs no wake-up... */
    assert_true(spool__core_latch_get_sleepy(&l));
    assert_false(spool__core_latch_set(&l));
    assert_true(spool__core_latch_probe(&l));
    /* ...and a set latch cannot get sleepy or fall asleep. */
    assert_false(spool__core_latch_get_sleepy(&l));
    assert_false(spool__core_latch_fall_asleep(&l));

    spool__core_latch_init(&l);
    assert_false(spool__core_latch_fall_asleep(&l)); /* not sleepy first */
    assert_true(spool__core_latch_get_sleepy(&l));
    assert_true(spool__core_latch_fall_asleep(&l));
    spool__core_latch_wake_up(&l); /* back to UNSET */
    assert_int_equal(atomic_load(&l.state), SPOOL__LATCH_UNSET);
    assert_true(spool__core_latch_get_sleepy(&l));
    assert_true(spool__core_latch_fall_asleep(&l));
    /* Only a set that replaces SLEEPING asks for a wake-up. */
    assert_true(spool__core_latch_set(&l));
    assert_false(spool__core_latch_set(&l));
    spool__core_latch_wake_up(&l); /* must not unset a set latch */
    assert_true(spool__core_latch_probe(&l));
}

typedef struct delayed_set {
    spool__lock_latch_t *lock;
    spool__spin_latch_t *spin;
    spool__count_latch_t *count;
    atomic_bool done;
    bool saw_sleeping;
} delayed_set_t;

static void *set_later(void *arg)
{
    delayed_set_t *d = arg;
    if (d->spin != NULL) {
        /* Let the owner search, get sleepy and block on its condvar. */
        for (int i = 0; i < 400 && !d->saw_sleeping; i++) {
            test_sleep_ms(5);
            d->saw_sleeping = atomic_load(&d->spin->core.state) == SPOOL__LATCH_SLEEPING;
        }
    } else {
        test_sleep_ms(50);
    }
    atomic_store(&d->done, true);
    if (d->lock != NULL)
        spool__lock_latch_set(d->lock);
    if (d->spin != NULL)
        spool__spin_latch_set(d->spin);
    if (d->count != NULL)
        spool__count_latch_set(d->count);
    return NULL;
}

/* The waiter blocks (the setter sleeps first) whether or not its job woke
 * a worker (which only decides whether it yields first). */
static void test_lock_latch(void **state)
{
    (void)state;
    for (int woke = 0; woke < 2; woke++) {
        spool__lock_latch_t l;
        assert_int_equal(spool__lock_latch_init(&l), 0);
        delayed_set_t d = {.lock = &l};
        atomic_init(&d.done, false);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, set_later, &d), 0);
        spool__lock_latch_wait(&l, woke);
        assert_true(atomic_load(&d.done));
        pthread_join(t, NULL);
        spool__lock_latch_destroy(&l);
    }
}

static void spin_latch_on_worker(void *arg)
{
    delayed_set_t *d = arg;
    spool__worker_t *w = spool__current_worker();
    spool__spin_latch_t latch;
    spool__worker_latch_init(&latch, w, true);
    d->spin = &latch;
    pthread_t t;
    if (pthread_create(&t, NULL, set_later, d) != 0)
        abort();
    spool__wait_until(w, &latch.core);
    pthread_join(t, NULL);
}

static void test_spin_latch_wakes_sleeping_owner(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    delayed_set_t d = {0};
    atomic_init(&d.done, false);
    assert_int_equal(spool_pool_install(pool, spin_latch_on_worker, &d), 0);
    assert_true(atomic_load(&d.done));
    assert_true(d.saw_sleeping); /* the owner did sleep on the latch */
    assert_int_equal(spool_pool_destroy(pool), 0);
}

enum { SETTERS = 4 };

static void count_latch_on(spool__worker_t *owner)
{
    spool__count_latch_t latch;
    if (spool__worker_count_latch_init(&latch, owner, false) != 0)
        abort();
    delayed_set_t d[SETTERS];
    pthread_t t[SETTERS];
    for (int i = 0; i < SETTERS; i++) {
        d[i] = (delayed_set_t){.count = &latch};
        atomic_init(&d[i].done, false);
        spool__count_latch_increment(&latch);
        if (pthread_create(&t[i], NULL, set_later, &d[i]) != 0)
            abort();
    }
    spool__count_latch_wait(&latch, owner);
    for (int i = 0; i < SETTERS; i++)
        if (!atomic_load(&d[i].done))
            abort();
    for (int i = 0; i < SETTERS; i++)
        pthread_join(t[i], NULL);
    spool__count_latch_destroy(&latch);
}

static void count_latch_on_worker(void *arg)
{
    *(bool *)arg = true;
    count_latch_on(spool__current_worker());
}

static void test_count_latch(void **state)
{
    (void)state;
    count_latch_on(NULL); /* blocking: owner outside any pool */
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    bool ran = false;
    assert_int_equal(spool_pool_install(pool, count_latch_on_worker, &ran), 0);
    assert_true(ran);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_core_latch_states),
        cmocka_unit_test(test_lock_latch),
        cmocka_unit_test(test_spin_latch_wakes_sleeping_owner),
        cmocka_unit_test(test_count_latch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
