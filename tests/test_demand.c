/* The demand, delayed (src/deque/demand.c; deque.md): with every stolen spawn
 * block and FIFO ticket marking its victim (a test hook), so that thieves
 * wait before most demands, a scope's spawns each run once, LIFO and FIFO,
 * at 2 and 4 threads, and the pool falls asleep afterwards: the wait is
 * bounded and the demand is still made after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pool_idle.h"
#include "platform/test_hooks.h"
#include "test_util.h"

typedef struct spawns {
    unsigned long n;
    _Atomic unsigned char *ran;
    int fifo;
} spawns_t;

static void leaf(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add_explicit((_Atomic unsigned char *)arg, 1, memory_order_relaxed);
}

static void spawn_all(spool_scope_t *s, void *arg)
{
    spawns_t *w = arg;
    for (unsigned long i = 0; i < w->n; i++)
        assert_int_equal(spool_scope_spawn(s, leaf, (void *)&w->ran[i]), 0);
}

static void run_spawns(void *arg)
{
    spawns_t *w = arg;
    if (w->fifo)
        spool_scope_fifo(spawn_all, w);
    else
        spool_scope(spawn_all, w);
}

static void test_delayed_demands_lose_nothing(void **state)
{
    (void)state;
    static const unsigned threads[] = {2, 4};
    unsigned long n = test_iters("SPOOL_TEST_DEMAND_SPAWNS", 100000);
    spawns_t w = {.n = n, .ran = calloc(n, 1)};
    assert_non_null(w.ran);
    spool__test_set_demand_always(1);
    (void)spool__test_demand_waits();
    for (unsigned k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        spool_pool_t *pool = test_pool(threads[k]);
        for (int fifo = 0; fifo <= 1; fifo++) {
            /* Rounds until thieves have waited at least once: a steal, and
             * a demand on its victim after it, are up to the scheduler, and
             * on a loaded machine a round may end before a thief runs. */
            unsigned long waits = 0;
            struct timespec start;
            clock_gettime(CLOCK_MONOTONIC, &start);
            while (waits == 0 && test_ms_since(&start) < 20000) {
                memset((void *)w.ran, 0, n);
                w.fifo = fifo;
                assert_int_equal(spool_pool_install(pool, run_spawns, &w), 0);
                for (unsigned long i = 0; i < n; i++)
                    if (atomic_load_explicit(&w.ran[i], memory_order_relaxed) != 1)
                        fail_msg("spawn %lu ran %u times", i, (unsigned)w.ran[i]);
                waits += spool__test_demand_waits();
            }
            assert_true(waits > 0);
            /* Every wait ends: the workers run out of work and sleep. */
            assert_true(test_wait_pool_asleep(pool, 5000));
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
    spool__test_set_demand_always(0);
    free((void *)w.ran);
}

int main(void)
{
    /* A recording timeline hands a spawn block on after each call
     * (trace.md), so a thief never finishes a stolen one and nothing is
     * marked: this test runs untraced even in the suite's SPOOL_TRACE pass. */
    unsetenv("SPOOL_TRACE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delayed_demands_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
