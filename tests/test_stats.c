/* spool_pool_stats: argument checks, ENOTSUP in a build without SPOOL_STATS,
 * and counters that add up in a build with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "spool.h"
#include "test_util.h"

static void test_stats(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    fib_task_t t = {22, 0};
    assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
    spool_worker_stats_t st;
    assert_int_equal(spool_pool_stats(NULL, 0, &st, sizeof st), EINVAL);
    assert_int_equal(spool_pool_stats(pool, 0, NULL, sizeof st), EINVAL);
    assert_int_equal(spool_pool_stats(pool, 2, &st, sizeof st), EINVAL);
    assert_int_equal(spool_pool_stats(pool, 0, &st, 1), EINVAL);
#ifdef SPOOL_STATS
    unsigned long long jobs = 0, steals = 0;
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(spool_pool_stats(pool, i, &st, sizeof st), 0);
        jobs += st.jobs_executed;
        steals += st.steals;
        assert_true(st.wakeups_received <= st.sleeps);
    }
    /* The install itself came from the injector; the forks were popped back
     * or stolen. */
    assert_true(jobs >= 1);
    assert_true(steals <= jobs);
    print_message("2 workers: %llu jobs executed, %llu stolen\n", jobs, steals);
    /* An older caller's smaller struct: nothing written past it. */
    struct {
        unsigned long long first_two[2];
        unsigned long long canary;
    } older = {{7, 7}, 0xC0FFEE};
    assert_int_equal(spool_pool_stats(pool, 0, (spool_worker_stats_t *)(void *)&older,
                                      sizeof older.first_two),
                     0);
    assert_true(older.canary == 0xC0FFEE);
    /* A newer caller's larger one: the counters we do not know are zeroed. */
    struct {
        spool_worker_stats_t known;
        unsigned long long later_counter;
    } newer;
    memset(&newer, 0xFF, sizeof newer);
    assert_int_equal(spool_pool_stats(pool, 0, &newer.known, sizeof newer), 0);
    assert_true(newer.later_counter == 0);
#else
    assert_int_equal(spool_pool_stats(pool, 0, &st, sizeof st), ENOTSUP);
#endif
    assert_int_equal(spool_pool_destroy(pool), 0);

    /* One worker never steals. */
    config.num_threads = 1;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
#ifdef SPOOL_STATS
    assert_int_equal(spool_pool_stats(pool, 0, &st, sizeof st), 0);
    assert_int_equal(st.steals, 0);
    assert_int_equal(st.failed_steals, 0);
    assert_true(st.jobs_executed >= fib_expected(23) - 1); /* every fork popped back */
#endif
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
