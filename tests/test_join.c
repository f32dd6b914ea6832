/* spool_join: recursive fib from outside any pool and inside pools of 1, 2,
 * 4 and 16 threads; both halves run; NULL functions abort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spool.h"
#include "test_util.h"

static void test_fib_outside_any_pool(void **state)
{
    (void)state;
    fib_task_t t = {25, 0};
    fib_join(&t); /* the first join enters the global pool */
    assert_int_equal(t.result, fib_expected(25));
}

static void fib_in_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    unsigned long rounds = test_iters("SPOOL_TEST_FIB_ROUNDS", 3);
    for (unsigned long r = 0; r < rounds; r++) {
        fib_task_t t = {25, 0};
        assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
        assert_int_equal(t.result, fib_expected(25));
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_fib_pool_1(void **state)
{
    (void)state;
    fib_in_pool(1);
}
static void test_fib_pool_2(void **state)
{
    (void)state;
    fib_in_pool(2);
}
static void test_fib_pool_4(void **state)
{
    (void)state;
    fib_in_pool(4);
}
static void test_fib_pool_16(void **state)
{
    (void)state;
    fib_in_pool(16);
}

/* Both halves run exactly once, and the second may run on a thief. */
typedef struct where {
    atomic_int runs;
    int thread_index;
} where_t;

static void record(void *arg)
{
    where_t *w = arg;
    atomic_fetch_add(&w->runs, 1);
    w->thread_index = spool_current_thread_index();
    test_sleep_ms(2); /* give thieves time to take the other half */
}

static void join_many(void *arg)
{
    int *stolen = arg;
    for (int i = 0; i < 200; i++) {
        where_t a = {0}, b = {0};
        atomic_init(&a.runs, 0);
        atomic_init(&b.runs, 0);
        spool_join(record, &a, record, &b);
        if (atomic_load(&a.runs) != 1 || atomic_load(&b.runs) != 1)
            abort();
        if (a.thread_index != b.thread_index)
            (*stolen)++;
    }
}

static void test_join_halves_run_once_and_get_stolen(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    int stolen = 0;
    assert_int_equal(spool_pool_install(pool, join_many, &stolen), 0);
    /* With a 2 ms half, the idle worker steals b at least sometimes. */
    assert_true(stolen > 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void noop(void *arg)
{
    (void)arg;
}

static void join_null_a(void)
{
    spool_join(NULL, NULL, noop, NULL);
}
static void join_null_b(void)
{
    spool_join(noop, NULL, NULL, NULL);
}

static void test_join_null_function_aborts(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(join_null_a, "spool_join: NULL function"), 0);
    assert_int_equal(test_expect_abort(join_null_b, "spool_join: NULL function"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_null_function_aborts),
        cmocka_unit_test(test_fib_outside_any_pool),
        cmocka_unit_test(test_fib_pool_1),
        cmocka_unit_test(test_fib_pool_2),
        cmocka_unit_test(test_fib_pool_4),
        cmocka_unit_test(test_fib_pool_16),
        cmocka_unit_test(test_join_halves_run_once_and_get_stolen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
