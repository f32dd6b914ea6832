/* Detached spawns: rayon-core's spawn/test.rs and thread_pool/test.rs order
 * tests on one-thread pools, spawns that outlive the pool handle, outside
 * threads spawning at once, ECANCELED after destroy began, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>

#include "order_log.h"
#include "spool.h"
#include "test_util.h"

typedef int (*spawn_kind)(spool_fn, void *);

typedef struct order_test {
    order_log_t log;
    spawn_kind outer, inner;
    order_item_t items[100];
    int outer_i[10];
} order_test_t;

static order_test_t T;

static void push_item(void *arg)
{
    order_item_t *it = arg;
    order_log_push(it->log, it->value);
}

/* test_order: spawn i, which spawns j. */
static void spawn_inner_items(void *arg)
{
    int i = *(int *)arg;
    for (int j = 0; j < 10; j++)
        if (T.inner(push_item, &T.items[i * 10 + j]) != 0)
            abort();
}

static void order_body(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        if (T.outer(spawn_inner_items, &T.outer_i[i]) != 0)
            abort();
}

/* test_mixed_order: values >= 0 with one kind, < 0 with the other. */
static void mixed_body(void *arg)
{
    (void)arg;
    const int values[] = {0, -1, 1, -2, 2, -3, 3};
    for (int k = 0; k < 7; k++) {
        spawn_kind kind = values[k] >= 0 ? T.outer : T.inner;
        if (kind(push_item, &T.items[values[k] + 50]) != 0)
            abort();
    }
}

/* thread_pool/test.rs test_spawn_order: pool.spawn of 0..10. */
static spool_pool_t *flat_pool;
static bool flat_fifo;

static void flat_body(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++) {
        int err = flat_fifo ? spool_pool_spawn_fifo(flat_pool, push_item, &T.items[i])
                            : spool_pool_spawn(flat_pool, push_item, &T.items[i]);
        if (err != 0)
            abort();
    }
}

/* Install body on a one-thread pool, then destroy it: destroy waits for
 * every detached spawn, so the log is complete afterwards. */
static void run_order(spawn_kind outer, spawn_kind inner, spool_fn body, int item_base)
{
    order_log_init(&T.log);
    T.outer = outer;
    T.inner = inner;
    for (int i = 0; i < 100; i++)
        T.items[i] = (order_item_t){&T.log, i - item_base};
    for (int i = 0; i < 10; i++)
        T.outer_i[i] = i;
    spool_config_t config = {.num_threads = 1};
    assert_int_equal(spool_pool_create(&config, &flat_pool), 0);
    assert_int_equal(spool_pool_install(flat_pool, body, NULL), 0);
    assert_int_equal(spool_pool_destroy(flat_pool), 0);
}


static void test_lifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn, spool_spawn, order_body, 0);
    expect_log_100(&T.log, order_reversed);
}

static void test_fifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn_fifo, spool_spawn_fifo, order_body, 0);
    expect_log_100(&T.log, order_natural);
}

static void test_lifo_fifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn, spool_spawn_fifo, order_body, 0);
    expect_log_100(&T.log, order_i_rev_j_fwd);
}

static void test_fifo_lifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn_fifo, spool_spawn, order_body, 0);
    expect_log_100(&T.log, order_i_fwd_j_rev);
}

static void test_mixed_lifo_fifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn, spool_spawn_fifo, mixed_body, 50);
    const int expected[] = {3, -1, 2, -2, 1, -3, 0};
    expect_log(&T.log, expected, 7);
}

static void test_mixed_fifo_lifo_order(void **state)
{
    (void)state;
    run_order(spool_spawn_fifo, spool_spawn, mixed_body, 50);
    const int expected[] = {0, -3, 1, -2, 2, -1, 3};
    expect_log(&T.log, expected, 7);
}

static void test_pool_spawn_lifo_order(void **state)
{
    (void)state;
    flat_fifo = false;
    run_order(spool_spawn, spool_spawn, flat_body, 0);
    const int expected[] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    expect_log(&T.log, expected, 10);
}

static void test_pool_spawn_fifo_order(void **state)
{
    (void)state;
    flat_fifo = true;
    run_order(spool_spawn, spool_spawn, flat_body, 0);
    const int expected[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    expect_log(&T.log, expected, 10);
}

/* ---- spawn from outside into the global pool --------------------------- */

static atomic_int outside_value;

static void store_22(void *arg)
{
    (void)arg;
    atomic_store(&outside_value, spool_current_thread_index() >= 0 ? 22 : -1);
}

static void test_spawn_outside_worker(void **state)
{
    (void)state;
    atomic_init(&outside_value, 0);
    assert_int_equal(spool_spawn(store_22, NULL), 0);
    for (int i = 0; i < 10000 && atomic_load(&outside_value) == 0; i++)
        test_sleep_ms(1);
    assert_int_equal(atomic_load(&outside_value), 22);
}

/* ---- a pool destroyed while a spawned job is blocked ------------------- */

typedef struct termination {
    spool_pool_t *pool;
    atomic_bool release, second_ran, destroy_done;
} termination_t;

static termination_t TM;

static void second_job(void *arg)
{
    (void)arg;
    atomic_store(&TM.second_ran, true);
}

static void blocked_job(void *arg)
{
    (void)arg;
    while (!atomic_load(&TM.release))
        test_sleep_ms(1);
    /* The handle is being destroyed; jobs of the pool may still spawn. */
    if (spool_spawn(second_job, NULL) != 0)
        abort();
}

static void *destroy_pool(void *arg)
{
    (void)arg;
    if (spool_pool_destroy(TM.pool) != 0)
        abort();
    atomic_store(&TM.destroy_done, true);
    return NULL;
}

static void noop(void *arg)
{
    (void)arg;
}

static void test_termination_while_things_are_executing(void **state)
{
    (void)state;
    atomic_init(&TM.release, false);
    atomic_init(&TM.second_ran, false);
    atomic_init(&TM.destroy_done, false);
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&config, &TM.pool), 0);
    assert_int_equal(spool_pool_spawn(TM.pool, blocked_job, NULL), 0);
    pthread_t destroyer;
    assert_int_equal(pthread_create(&destroyer, NULL, destroy_pool, NULL), 0);
    /* Wait until destroy has begun: outside spawns are then refused. */
    int err = 0;
    for (int i = 0; i < 10000 && err == 0; i++) {
        err = spool_pool_spawn(TM.pool, noop, NULL);
        if (err == 0)
            test_sleep_ms(1);
    }
    assert_int_equal(err, ECANCELED);
    assert_int_equal(spool_pool_spawn_fifo(TM.pool, noop, NULL), ECANCELED);
    assert_false(atomic_load(&TM.destroy_done));
    atomic_store(&TM.release, true);
    pthread_join(destroyer, NULL);
    assert_true(atomic_load(&TM.second_ran));
}

/* ---- two outside threads spawning 100,000 jobs each -------------------- */

typedef struct flood {
    spool_pool_t *pool;
    atomic_long counter;
    unsigned long per_thread;
    bool fifo;
} flood_t;

static void increment(void *arg)
{
    flood_t *f = arg;
    atomic_fetch_add_explicit(&f->counter, 1, memory_order_relaxed);
}

static void *flood_spawner(void *arg)
{
    flood_t *f = arg;
    for (unsigned long i = 0; i < f->per_thread; i++) {
        int err = f->fifo ? spool_pool_spawn_fifo(f->pool, increment, f)
                          : spool_pool_spawn(f->pool, increment, f);
        if (err != 0)
            abort();
    }
    return NULL;
}

static void test_outside_threads_spawn_then_destroy(void **state)
{
    (void)state;
    for (int fifo = 0; fifo < 2; fifo++) {
        flood_t f;
        f.per_thread = test_iters("SPOOL_TEST_SPAWN_JOBS", 100000);
        f.fifo = fifo;
        atomic_init(&f.counter, 0);
        spool_config_t config = {.num_threads = 2};
        assert_int_equal(spool_pool_create(&config, &f.pool), 0);
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&t[i], NULL, flood_spawner, &f), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        assert_int_equal(spool_pool_destroy(f.pool), 0);
        assert_int_equal(atomic_load(&f.counter), (long)(2 * f.per_thread));
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(spool_spawn(NULL, NULL), EINVAL);
    assert_int_equal(spool_spawn_fifo(NULL, NULL), EINVAL);
    assert_int_equal(spool_pool_spawn(NULL, noop, NULL), EINVAL);
    assert_int_equal(spool_pool_spawn_fifo(NULL, noop, NULL), EINVAL);
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(NULL, &pool), 0);
    assert_int_equal(spool_pool_spawn(pool, NULL, NULL), EINVAL);
    assert_int_equal(spool_pool_spawn_fifo(pool, NULL, NULL), EINVAL);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_lifo_order),
        cmocka_unit_test(test_fifo_order),
        cmocka_unit_test(test_lifo_fifo_order),
        cmocka_unit_test(test_fifo_lifo_order),
        cmocka_unit_test(test_mixed_lifo_fifo_order),
        cmocka_unit_test(test_mixed_fifo_lifo_order),
        cmocka_unit_test(test_pool_spawn_lifo_order),
        cmocka_unit_test(test_pool_spawn_fifo_order),
        cmocka_unit_test(test_spawn_outside_worker),
        cmocka_unit_test(test_termination_while_things_are_executing),
        cmocka_unit_test(test_outside_threads_spawn_then_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
