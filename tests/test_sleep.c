/* The sleep protocol: idle workers stop using the CPU, and work posted
 * after they slept (from outside or by setting latches) wakes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "platform/places.h"
#include "pool_idle.h"
#include "sleep/sleep.h"
#include "spool.h"
#include "test_util.h"

static void test_idle_pool_uses_no_cpu(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 8};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    fib_task_t t = {24, 0};
    assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
    assert_int_equal(t.result, fib_expected(24));
    /* Work has stopped: the workers search a little, then sleep. */
    double cpu0 = test_cpu_seconds();
    test_sleep_ms(500);
    double idle_cpu = test_cpu_seconds() - cpu0;
    print_message("idle CPU over 0.5 s: %.4f s\n", idle_cpu);
    assert_true(idle_cpu < 0.1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* Bursts separated by gaps long enough for every worker to fall asleep: a
 * lost wake-up shows up as a hang (the ctest TIMEOUT). */
static void test_bursts_after_sleep(void **state)
{
    (void)state;
    unsigned threads[] = {1, 2, 8};
    unsigned long bursts = test_iters("SPOOL_TEST_SLEEP_BURSTS", 20);
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        spool_config_t config = {.num_threads = threads[i]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        for (unsigned long b = 0; b < bursts; b++) {
            test_sleep_ms(b % 3 == 0 ? 20 : 1);
            fib_task_t t = {15, 0};
            assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
            assert_int_equal(t.result, fib_expected(15));
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* The inactive count (sleep.md): a worker whose thread has
 * not run yet counts as idle, so that a pool's first jobs spread (a job's
 * holder that finds no one idle keeps its other jobs private, deque.md
 * rule 3), and so does one running the start handler, until its first
 * search finds work (that search does not count it again).  And a
 * pool whose work has stopped has every worker inactive again. */
static void test_unstarted_workers_count_as_idle(void **state)
{
    (void)state;
    spool__sleep_t s;
    assert_int_equal(spool__sleep_init(&s, 3, 3), 0);
    uint64_t c = atomic_load(&s.counters);
    assert_int_equal(spool__counters_inactive(c), 3);
    assert_int_equal(spool__counters_sleeping(c), 0);
    spool__idle_state_t idle;
    spool__sleep_start_looking(&s, 0, &idle, true); /* a worker's first search */
    assert_int_equal(spool__counters_inactive(atomic_load(&s.counters)), 3);
    spool__sleep_work_found(&s, false);
    assert_int_equal(spool__counters_inactive(atomic_load(&s.counters)), 2);
    spool__sleep_start_looking(&s, 0, &idle, false); /* a later one */
    assert_int_equal(spool__counters_inactive(atomic_load(&s.counters)), 3);
    spool__sleep_work_found(&s, false);
    assert_int_equal(spool__counters_inactive(atomic_load(&s.counters)), 2);
    spool__sleep_destroy(&s);

    spool_config_t config = {.num_threads = 4};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    fib_task_t t = {15, 0};
    assert_int_equal(spool_pool_install(pool, fib_join, &t), 0);
    assert_true(test_wait_pool_idle(pool, 5000));
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* W10's shape from outside: many short loops handed in one by one, each
 * taken by a worker still awake from the last.  Once they stop, every
 * worker sleeps again within its 32 rounds (sleep.md); the deadline is
 * generous, for sanitizers and valgrind. */
enum { SHORT_LOOP_LEN = 4096 };
static double short_loop_data[SHORT_LOOP_LEN];

static void scale_part(void *ctx, size_t begin, size_t end)
{
    (void)ctx;
    for (size_t i = begin; i < end; i++)
        short_loop_data[i] = short_loop_data[i] * 0.5 + 1.0;
}

static void short_loop(void *arg)
{
    (void)arg;
    spool_for(0, SHORT_LOOP_LEN, NULL, scale_part, NULL);
}

static void test_pool_sleeps_after_short_loops(void **state)
{
    (void)state;
    unsigned long calls = test_iters("SPOOL_TEST_SHORT_LOOPS", 2000);
    unsigned threads[] = {1, 2, 4};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        spool_config_t config = {.num_threads = threads[k]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        for (size_t i = 0; i < SHORT_LOOP_LEN; i++)
            short_loop_data[i] = 2.0;
        for (unsigned long c = 0; c < calls; c++)
            assert_int_equal(spool_pool_install(pool, short_loop, NULL), 0);
        for (size_t i = 0; i < SHORT_LOOP_LEN; i++)
            assert_true(short_loop_data[i] == 2.0); /* 2 * 0.5 + 1, each call */
        assert_true(test_wait_pool_asleep(pool, 5000));
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Keeping ready (sleep.md): the keep after a search that kept looking or
 * slept, for gaps under half the most, up to it, and beyond it. */
static void test_keep_follows_gaps(void **state)
{
    (void)state;
    const uint64_t max = 200;
    assert_int_equal(spool__sleep_next_keep(0, 40, max), 80);    /* twice a short gap */
    assert_int_equal(spool__sleep_next_keep(80, 40, max), 80);   /* steady */
    assert_int_equal(spool__sleep_next_keep(80, 150, max), 200); /* most, not 300 */
    assert_int_equal(spool__sleep_next_keep(0, 200, max), 200);
    assert_int_equal(spool__sleep_next_keep(200, 10, max), 100); /* sooner: halves */
    assert_int_equal(spool__sleep_next_keep(200, 201, max), 100); /* too late: halves */
    assert_int_equal(spool__sleep_next_keep(0, 0, 0), 0);        /* oversubscribed */
    assert_int_equal(spool__sleep_next_keep(0, 1000, 0), 0);
    /* Work that stops coming: every later search that sleeps halves it, to 0. */
    uint64_t keep = max;
    int searches = 0;
    while (keep != 0 && searches < 64) {
        keep = spool__sleep_next_keep(keep, 1000000, max);
        searches++;
    }
    assert_int_equal(keep, 0);
    assert_true(searches <= 8);
}

static void count_call(void *arg)
{
    (*(unsigned long *)arg)++;
}

/* Calls handed in with the caller's own work between them, gaps that the
 * keep covers: workers keep looking past their rounds for them.  When the
 * calls stop, every worker still sleeps (within its keep, at most
 * keep_max), and no keep exceeds the most. */
static void test_kept_workers_sleep_when_work_stops(void **state)
{
    (void)state;
    unsigned long calls = test_iters("SPOOL_TEST_KEEP_CALLS", 300);
    unsigned threads[] = {1, 2};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        spool_config_t config = {.num_threads = threads[k]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        unsigned long done = 0;
        for (unsigned long c = 0; c < calls; c++) {
            test_busy_ns(c % 3 == 0 ? 20000 : c % 3 == 1 ? 100000 : 300000);
            assert_int_equal(spool_pool_install(pool, count_call, &done), 0);
        }
        assert_int_equal(done, calls);
        assert_true(test_wait_pool_asleep(pool, 5000));
        /* Asleep: each worker's last write of its keep came before its
         * count, which the wait's acquire load read. */
        for (unsigned i = 0; i < threads[k]; i++)
            assert_true(pool->sleep.workers[i].keep <= pool->sleep.keep_max);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Jobs that block (here in a sleep) in a pool of more threads than CPUs:
 * spawns run side by side on the workers idle when the spawner starts
 * running one of them (spool_scope_spawn), and each that no idle worker
 * can take wakes a sleeper (sleep.md), so all of them run at once.  A pool
 * that woke no more workers than CPUs would run them in waves. */
typedef struct side_by_side {
    unsigned jobs;
    atomic_int running;
    atomic_int most;
} side_by_side_t;

static void blocking_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    side_by_side_t *s = arg;
    test_raise_to(&s->most, atomic_fetch_add(&s->running, 1) + 1);
    test_sleep_ms(200);
    atomic_fetch_sub(&s->running, 1);
}

static void spawn_blocking(spool_scope_t *scope, void *arg)
{
    const side_by_side_t *s = arg;
    for (unsigned i = 0; i < s->jobs; i++)
        assert_int_equal(spool_scope_spawn(scope, blocking_job, arg), 0);
}

static void blocking_round(void *arg)
{
    spool_scope(spawn_blocking, arg);
}

static void blocking_round_fifo(void *arg)
{
    spool_scope_fifo(spawn_blocking, arg);
}

static void test_blocking_jobs_run_side_by_side(void **state)
{
    (void)state;
    unsigned cpus = spool__places_cpu_count();
    if (cpus == 0)
        cpus = 1;
    unsigned threads = 2 * cpus + 2 > 64 ? 64 : 2 * cpus + 2;
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (int round = 0; round < 4; round++) {
        side_by_side_t s = {threads, 0, 0};
        /* Asleep first, as the pool is between bursts. */
        assert_true(test_wait_pool_asleep(pool, 5000));
        spool_fn fn = round % 2 != 0 ? blocking_round_fifo : blocking_round;
        assert_int_equal(spool_pool_install(pool, fn, &s), 0);
        print_message("%u CPUs, %u workers: %d of %u jobs at once\n", cpus, threads,
                      atomic_load(&s.most), s.jobs);
        assert_int_equal(atomic_load(&s.running), 0);
        assert_int_equal(atomic_load(&s.most), s.jobs);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_pool_uses_no_cpu),
        cmocka_unit_test(test_bursts_after_sleep),
        cmocka_unit_test(test_unstarted_workers_count_as_idle),
        cmocka_unit_test(test_pool_sleeps_after_short_loops),
        cmocka_unit_test(test_keep_follows_gaps),
        cmocka_unit_test(test_kept_workers_sleep_when_work_stops),
        cmocka_unit_test(test_blocking_jobs_run_side_by_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
