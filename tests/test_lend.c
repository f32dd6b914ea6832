/* Lending's parks (scheduler/lend.h), the waits of libspool-omp's threads:
 * a worker's park set from outside its pool, and the pool reference its
 * setter holds for the wake-up, down to the case where that reference is
 * the pool's last (the owner returned and the pool was destroyed while the
 * setter was still waking it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>

#include "spool_broadcast.h"

#include "platform/places.h"
#include "platform/tuning.h"
#include "scheduler/lend.h"
#include "scheduler/pool.h"
#include "test_util.h"

typedef struct park_case {
    spool_pool_t *pool;
    _Atomic(spool__park_t *) park; /* the owner's, once set up */
    atomic_bool owner_done;
    atomic_bool on_worker; /* the owner's park waits in the pool */
    sem_t destroyed;       /* the main thread destroyed the pool */
    bool wait_for_destroy; /* the setter's release waits for that */
    size_t refs_at_release; /* the pool's references as the setter drops its own */
    atomic_int holds, releases;
} park_case_t;

/* The test's keeper for the pool's sleep state: the pool's own (a
 * reference) with a look at the count, and, where asked, a wait for the
 * pool's destruction before the drop, so that the drop is the last. */
static park_case_t *current_case;

static void hold(void *keeper)
{
    atomic_fetch_add(&current_case->holds, 1);
    spool__pool_ref(keeper);
}

static void release(void *keeper)
{
    park_case_t *c = current_case;
    spool_pool_t *pool = keeper;
    if (c->wait_for_destroy) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 30;
        assert_int_equal(sem_timedwait(&c->destroyed, &until), 0);
    }
    c->refs_at_release = atomic_load(&pool->refs);
    atomic_fetch_add(&c->releases, 1);
    spool__pool_unref(pool); /* the last one frees the pool here */
}

static void owner(void *arg)
{
    park_case_t *c = arg;
    spool__park_t park;
    assert_int_equal(spool__park_init(&park), 0);
    atomic_store(&c->on_worker, !park.blocking);
    atomic_store(&c->park, &park);
    spool__park_wait(&park);
    spool__park_destroy(&park);
    atomic_store(&c->owner_done, true);
}

static void *setter(void *arg)
{
    park_case_t *c = arg;
    spool__park_t *p;
    while ((p = atomic_load(&c->park)) == NULL)
        test_sleep_ms(1);
    test_sleep_ms(20); /* the owner is likely asleep by now */
    spool__park_set(p);
    return NULL;
}

static void run_case(bool last_drop)
{
    park_case_t c = {.wait_for_destroy = last_drop};
    assert_int_equal(sem_init(&c.destroyed, 0, 0), 0);
    current_case = &c;
    spool_config_t config = {.num_threads = 1};
    assert_int_equal(spool_pool_create(&config, &c.pool), 0);
    spool__sleep_set_keeper(&c.pool->sleep, hold, release, c.pool);
    assert_int_equal(spool_pool_spawn(c.pool, owner, &c), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, setter, &c), 0);
    if (!last_drop) {
        while (!atomic_load(&c.owner_done))
            test_sleep_ms(1);
        /* The wake-up's reference is dropped by now or soon. */
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(c.refs_at_release, 2); /* the handle's and its own */
        assert_int_equal(spool_pool_destroy(c.pool), 0);
    } else {
        /* The owner returns once its park is set; destroying the pool
         * joins its worker and drops the handle's reference while the
         * setter still holds its own, which frees the pool. */
        assert_int_equal(spool_pool_destroy(c.pool), 0);
        assert_true(atomic_load(&c.owner_done));
        sem_post(&c.destroyed);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(c.refs_at_release, 1);
    }
    assert_true(atomic_load(&c.on_worker));
    assert_int_equal(atomic_load(&c.holds), 1);
    assert_int_equal(atomic_load(&c.releases), 1);
    sem_destroy(&c.destroyed);
    current_case = NULL;
}

/* A worker's park, set by a thread outside its pool: the setter holds the
 * pool for the wake-up and drops it after. */
static void test_park_set_from_outside(void **state)
{
    (void)state;
    run_case(false);
}

/* The same, where the setter's drop is the pool's last: the pool is freed
 * on the setter's thread, after its wake-up (AddressSanitizer and valgrind
 * see any access after the free). */
static void test_park_last_drop_by_setter(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_PARK_ROUNDS", 3);
    for (unsigned long i = 0; i < rounds; i++)
        run_case(true);
}

/* A park of a thread outside any pool blocks on its own mutex and
 * condition variable, and no pool is held. */
static void *outside_setter(void *arg)
{
    spool__park_t *p = arg;
    test_sleep_ms(20);
    spool__park_set(p);
    return NULL;
}

static void test_park_outside_any_pool(void **state)
{
    (void)state;
    spool__park_t park;
    assert_int_equal(spool__park_init(&park), 0);
    assert_true(park.blocking);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, outside_setter, &park), 0);
    spool__park_wait(&park);
    assert_int_equal(pthread_join(t, NULL), 0);
    spool__park_destroy(&park);
}

/* Lingering (lend.md, L6): a worker lent back to back learns to watch its
 * dock after each lend; a broadcast, and the pool's destruction, still
 * reach it while it lingers. */
typedef struct linger_case {
    spool_pool_t *pool;
    atomic_int ended; /* lends that returned */
    atomic_int broadcast_runs;
} linger_case_t;

static void lent_fn(void *arg)
{
    linger_case_t *c = arg;
    spool__lend_return();
    spool__lend_linger();
    atomic_fetch_add(&c->ended, 1);
}

static void claimer(void *arg)
{
    linger_case_t *c = arg;
    unsigned long rounds = test_iters("SPOOL_TEST_LINGER_ROUNDS", 200);
    int expected = atomic_load(&c->ended);
    for (unsigned long i = 0; i < rounds; i++) {
        spool__lend_t rec;
        spool__lend_init(&rec, lent_fn, c);
        /* The other worker may still be on its way back to its dock. */
        while (spool__lend(c->pool, 0, 1, &rec) == 0)
            sched_yield();
        expected++;
        while (atomic_load(&c->ended) != expected)
            sched_yield();
    }
}

static void count_run(void *arg, unsigned index, unsigned count)
{
    (void)index;
    (void)count;
    linger_case_t *c = arg;
    atomic_fetch_add(&c->broadcast_runs, 1);
}

static void test_linger_broadcast_and_destroy(void **state)
{
    (void)state;
    linger_case_t c = {0};
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&config, &c.pool), 0);
    assert_int_equal(spool_pool_install(c.pool, claimer, &c), 0);
    /* The lent worker lingers now: a broadcast's run on it ends that. */
    assert_int_equal(spool_pool_broadcast(c.pool, count_run, &c), 0);
    assert_int_equal(atomic_load(&c.broadcast_runs), 2);
    assert_int_equal(spool_pool_install(c.pool, claimer, &c), 0);
    /* And the pool's destruction joins a lingering worker. */
    assert_int_equal(spool_pool_destroy(c.pool), 0);
    assert_int_equal(atomic_load(&c.ended), 2 * (int)test_iters("SPOOL_TEST_LINGER_ROUNDS", 200));
}

/* A pool whose creator runs beside its workers counts it: with as many
 * workers as CPUs it has more threads than CPUs, and its searchers
 * neither spin nor keep looking; the next pool the thread creates does
 * not count it. */
static void test_creator_counts(void **state)
{
    (void)state;
    unsigned cpus = spool__places_cpu_count();
    spool_config_t config = {.num_threads = cpus > 0 ? cpus : 1};
    spool_pool_t *pool;
    spool__pool_creator_runs(1);
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    spool__pool_creator_runs(0);
    if (cpus > 0) {
        assert_int_equal(pool->sleep.spin_rounds, 0);
        assert_int_equal(pool->sleep.keep_max, 0);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(pool->sleep.spin_rounds, spool__tuning.spin_rounds);
    assert_int_equal(pool->sleep.keep_max, spool__tuning.keep_max);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_park_set_from_outside),
        cmocka_unit_test(test_park_last_drop_by_setter),
        cmocka_unit_test(test_park_outside_any_pool),
        cmocka_unit_test(test_linger_broadcast_and_destroy),
        cmocka_unit_test(test_creator_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
