/* Stress (label "stress"): joins on pools of 1, 2, 8 and 64 threads on a
 * 2-core machine, outside threads joining into the global pool at once,
 * and pools created and destroyed while others run.  Counts come from the
 * environment (SPOOL_TEST_STRESS_ROUNDS, SPOOL_TEST_SCALE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "spool.h"
#include "test_util.h"

typedef struct sum_task {
    unsigned lo, hi;
    unsigned long sum;
} sum_task_t;

/* Sum of lo..hi-1 by halving: nothing lost, nothing run twice. */
static void range_sum(void *arg)
{
    sum_task_t *t = arg;
    if (t->hi - t->lo <= 4) {
        t->sum = 0;
        for (unsigned i = t->lo; i < t->hi; i++)
            t->sum += i;
        return;
    }
    unsigned mid = t->lo + (t->hi - t->lo) / 2;
    sum_task_t a = {t->lo, mid, 0}, b = {mid, t->hi, 0};
    spool_join(range_sum, &a, range_sum, &b);
    t->sum = a.sum + b.sum;
}

static void check_range(unsigned n)
{
    sum_task_t t = {0, n, 0};
    range_sum(&t);
    if (t.sum != (unsigned long)n * (n - 1) / 2)
        abort();
}

static void run_check_range(void *arg)
{
    check_range(*(unsigned *)arg);
}

static void test_pools_of_many_sizes(void **state)
{
    (void)state;
    unsigned sizes[] = {1, 2, 8, 64};
    unsigned long rounds = test_iters("SPOOL_TEST_STRESS_ROUNDS", 30);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        spool_config_t config = {.num_threads = sizes[s]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        for (unsigned long r = 0; r < rounds; r++) {
            unsigned n = 1000 + (unsigned)(r * 7919 % 50000);
            assert_int_equal(spool_pool_install(pool, run_check_range, &n), 0);
            if (r % 10 == 9)
                test_sleep_ms(15); /* let workers fall asleep */
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

enum { OUTSIDE_THREADS = 8 };

static void *outside_joiner(void *arg)
{
    unsigned long rounds = *(unsigned long *)arg;
    for (unsigned long r = 0; r < rounds; r++)
        check_range(100 + (unsigned)(r % 2000));
    return NULL;
}

static void *pool_churner(void *arg)
{
    unsigned long rounds = *(unsigned long *)arg;
    for (unsigned long r = 0; r < rounds; r++) {
        spool_config_t config = {.num_threads = 1 + (unsigned)(r % 3)};
        spool_pool_t *pool;
        if (spool_pool_create(&config, &pool) != 0)
            abort();
        unsigned n = 3000;
        if (spool_pool_install(pool, run_check_range, &n) != 0)
            abort();
        if (spool_pool_destroy(pool) != 0)
            abort();
    }
    return NULL;
}

static void test_outside_threads_and_pool_churn(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_STRESS_ROUNDS", 30) * 10;
    pthread_t t[OUTSIDE_THREADS + 1];
    for (int i = 0; i < OUTSIDE_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, outside_joiner, &rounds), 0);
    unsigned long churn = rounds / 10;
    assert_int_equal(pthread_create(&t[OUTSIDE_THREADS], NULL, pool_churner, &churn), 0);
    for (int i = 0; i <= OUTSIDE_THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pools_of_many_sizes),
        cmocka_unit_test(test_outside_threads_and_pool_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
