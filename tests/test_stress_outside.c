/* Stress (label "stress"): threads outside the pools and idle pools.
 * 500,000 joins submitted from outside into a 2-thread pool (rayon's
 * join_counter_overflow); 4 outside threads running joins, isolations,
 * scopes and task groups in the global pool, its caller slot changing hands
 * between them; bursts of work after idle gaps long enough for every worker
 * to fall asleep, posted from workers, from outside and by setting latches,
 * on pools of 1, 2, 8 and 64 threads (on a 2-core machine).  Totals are
 * checked exactly.
 *
 * Counts (environment): SPOOL_TEST_OUTSIDE_JOINS, SPOOL_TEST_BURSTS,
 * SPOOL_TEST_SLOT_ROUNDS; SPOOL_TEST_SCALE multiplies them all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "spool.h"
#include "test_util.h"

/* ---- outside roots in the global pool: the caller slot changing hands --- */

static atomic_long slot_jobs;

static void slot_leaf(spool_scope_t *scope, void *arg)
{
    (void)scope;
    atomic_fetch_add(&slot_jobs, *(const int *)arg);
}

static void slot_part(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    atomic_fetch_add(&slot_jobs, (long)(e - b));
}

static void slot_scope_body(spool_scope_t *scope, void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++) {
        int one = 1;
        if (spool_scope_spawn_copy(scope, slot_leaf, &one, sizeof one) != 0)
            abort();
    }
    spool_for(0, 100, &(spool_for_opts_t){.max_len = 7}, slot_part, NULL);
}

static void slot_isolated(void *arg)
{
    fib_join(arg);
}

static void *outside_roots(void *arg)
{
    unsigned long rounds = *(unsigned long *)arg;
    for (unsigned long r = 0; r < rounds; r++) {
        fib_task_t t = {12 + (unsigned)(r % 5), 0};
        switch (r % 4) {
        case 0:
            fib_join(&t);
            break;
        case 1:
            spool_isolate(slot_isolated, &t);
            break;
        case 2:
            spool_scope(slot_scope_body, NULL);
            fib_join(&t);
            break;
        default: {
            spool_group_t g;
            spool_group_init(&g);
            for (int i = 0; i < 20; i++) {
                int one = 1;
                if (spool_group_spawn_copy(&g, slot_leaf, &one, sizeof one) != 0)
                    abort();
            }
            fib_join(&t); /* on the slot's worker, if the group took it */
            spool_group_wait(&g);
            break;
        }
        }
        if (t.result != fib_expected(t.n))
            abort();
    }
    return NULL;
}

static void test_outside_roots_in_global_pool(void **state)
{
    (void)state;
    enum { OUTSIDE = 4 };
    unsigned long rounds = test_iters("SPOOL_TEST_SLOT_ROUNDS", 2000);
    atomic_store(&slot_jobs, 0);
    pthread_t t[OUTSIDE];
    for (int i = 0; i < OUTSIDE; i++)
        assert_int_equal(pthread_create(&t[i], NULL, outside_roots, &rounds), 0);
    for (int i = 0; i < OUTSIDE; i++)
        pthread_join(t[i], NULL);
    /* Rounds 2 and 3 of every 4: 120 and 20 counts. */
    long per = 0;
    for (unsigned long r = 0; r < rounds; r++)
        per += r % 4 == 2 ? 120 : r % 4 == 3 ? 20 : 0;
    assert_int_equal(atomic_load(&slot_jobs), OUTSIDE * per);
}

/* ---- rayon's join_counter_overflow: many joins from outside ------------- */

typedef struct pair_counts {
    unsigned long i, j;
} pair_counts_t;

static void inc_i(void *arg)
{
    ((pair_counts_t *)arg)->i++;
}
static void inc_j(void *arg)
{
    ((pair_counts_t *)arg)->j++;
}
static void join_pair(void *arg)
{
    spool_join(inc_i, arg, inc_j, arg);
}

static void test_outside_joins(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(2);
    unsigned long n = test_iters("SPOOL_TEST_OUTSIDE_JOINS", 500000);
    pair_counts_t c = {0, 0};
    for (unsigned long k = 0; k < n; k++)
        assert_int_equal(spool_pool_install(pool, join_pair, &c), 0);
    assert_int_equal(c.i, n);
    assert_int_equal(c.j, n);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- bursts after idle gaps ---------------------------------------------- */

static atomic_long burst_done;

static void burst_leaf(void *arg)
{
    (void)arg;
    atomic_fetch_add(&burst_done, 1);
}

static void burst_from_worker(void *arg)
{
    /* Posted by a worker: it spawns more, which sleeping workers must get. */
    long k = (long)(intptr_t)arg;
    for (long i = 0; i < k; i++)
        if (spool_spawn(burst_leaf, NULL) != 0)
            abort();
    atomic_fetch_add(&burst_done, 1);
}

static void slow_half(void *arg)
{
    (void)arg;
    test_sleep_ms(3); /* long enough for the owner to sleep on the latch */
    atomic_fetch_add(&burst_done, 1);
}

static void latch_burst(void *arg)
{
    (void)arg;
    /* The owner runs the fast half, finds the slow half stolen and sleeps
     * on its latch; the thief's latch set must wake it. */
    spool_join(burst_leaf, NULL, slow_half, NULL);
}

static void test_bursts_after_idle(void **state)
{
    (void)state;
    unsigned long bursts = test_iters("SPOOL_TEST_BURSTS", 60);
    static const unsigned pool_sizes[] = {1, 2, 8, 64};
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        atomic_store(&burst_done, 0);
        long expected = 0;
        for (unsigned long b = 0; b < bursts; b++) {
            test_sleep_ms(5 + (long)(b % 4) * 5); /* workers fall asleep */
            switch (b % 3) {
            case 0: /* from a worker */
                assert_int_equal(spool_pool_spawn(pool, burst_from_worker, (void *)(intptr_t)20), 0);
                expected += 21;
                break;
            case 1: /* from outside, several at once */
                for (int i = 0; i < 10; i++)
                    assert_int_equal(spool_pool_spawn_fifo(pool, burst_leaf, NULL), 0);
                expected += 10;
                break;
            default: /* by setting a latch */
                assert_int_equal(spool_pool_install(pool, latch_burst, NULL), 0);
                expected += 2;
                break;
            }
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
        assert_int_equal(atomic_load(&burst_done), expected);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outside_joins),
        cmocka_unit_test(test_outside_roots_in_global_pool),
        cmocka_unit_test(test_bursts_after_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
