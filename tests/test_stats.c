/* spool_pool_stats: argument checks, ENOTSUP in a build without SPOOL_STATS,
 * and counters that add up in a build with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "spool.h"
#include "pool_idle.h"
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

#ifdef SPOOL_STATS
/* The sum of every worker's counters, field by field. */
static spool_worker_stats_t stats_sum(spool_pool_t *pool)
{
    spool_worker_stats_t sum;
    memset(&sum, 0, sizeof sum);
    unsigned long long *to = (unsigned long long *)(void *)&sum;
    for (unsigned i = 0; i < spool_pool_num_threads(pool); i++) {
        spool_worker_stats_t st;
        assert_int_equal(spool_pool_stats(pool, i, &st, sizeof st), 0);
        const unsigned long long *from = (const unsigned long long *)(const void *)&st;
        for (size_t k = 0; k < sizeof st / sizeof *from; k++)
            to[k] += from[k];
    }
    return sum;
}

static void pause_job(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    test_sleep_ms(2);
}

static void spawn_pauses(spool_scope_t *s, void *arg)
{
    unsigned n = *(unsigned *)arg;
    for (unsigned i = 0; i < n; i++)
        spool_scope_spawn(s, pause_job, NULL);
}

static void scope_of_pauses(void *arg)
{
    spool_scope(spawn_pauses, arg);
}
#endif

/* The costs of a call: the shared read-modify-writes a scope's spawns
 * make, and the wake-ups, probes and yields that sleeping workers cost the
 * thread that posts work. */
#ifdef SPOOL_STATS
static void test_cost_counters(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 4};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    /* Asleep first, so that the spawns' worker has sleepers to wake. */
    assert_true(test_wait_pool_asleep(pool, 5000));
    spool_worker_stats_t before = stats_sum(pool);
    unsigned spawns = 64;
    assert_int_equal(spool_pool_install(pool, scope_of_pauses, &spawns), 0);
    spool_worker_stats_t after = stats_sum(pool);
    print_message("4 workers, %u spawns: rmw counts %llu, sleep %llu, queues %llu, deques %llu; "
                  "woke %llu, probes %llu, yields %llu, lock waits %llu\n",
                  spawns, after.rmw_counts - before.rmw_counts, after.rmw_sleep - before.rmw_sleep,
                  after.rmw_queues - before.rmw_queues, after.rmw_deques - before.rmw_deques,
                  after.wakeups_sent - before.wakeups_sent, after.wake_probes - before.wake_probes,
                  after.yields - before.yields, after.lock_waits - before.lock_waits);
    /* Spawns are counted into the scope as they become public and out as
     * they finish, a block of them at a time where they can be: at least
     * one RMW each way, at most one per spawn each way (and the install's
     * two on the pool's count). */
    assert_true(after.rmw_counts - before.rmw_counts >= 2);
    assert_true(after.rmw_counts - before.rmw_counts <= 2 * spawns + 2);
    /* The installed job came from the pool's queue: a worker took its lock. */
    assert_true(after.rmw_queues - before.rmw_queues >= 1);
    /* Every worker woke (the outside install woke one; the rest were woken by
     * workers, or saw the work before they slept), and whoever woke a
     * sleeper first took its lock to look. */
    assert_true(after.wake_probes >= after.wakeups_sent);
    assert_true(after.lock_waits <= after.wake_probes + after.sleeps);
    /* A stolen job is one won CAS on a deque's top. */
    assert_true(after.rmw_deques - before.rmw_deques >= after.steals - before.steals);
    /* Searching and finding work is two RMWs on the sleep counters. */
    assert_true(after.rmw_sleep - before.rmw_sleep >= 2);
    for (unsigned i = 0; i < 4; i++) {
        spool_worker_stats_t st;
        assert_int_equal(spool_pool_stats(pool, i, &st, sizeof st), 0);
        /* A worker gets sleepy only after a round that yields, and counts
         * itself asleep with an RMW. */
        if (st.sleeps > 0) {
            assert_true(st.yields > 0);
            assert_true(st.rmw_sleep > 0);
        }
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
#ifdef SPOOL_STATS
        cmocka_unit_test(test_cost_counters),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
