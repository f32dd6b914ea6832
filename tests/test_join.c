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

/* The split deque's promises (src/deque.md): a job pushed while no public
 * job is left is public at once, and a private one is published at its
 * owner's next fork once the public part has run out (here: the idle worker
 * took the older public job).  Demand at a pop is test_scope.c's.  In both tests a() waits
 * (forking, in the second) until b has run on the other worker, for 10 s at
 * most; if b stayed invisible it would run after a(), on a's worker. */
typedef struct visible {
    atomic_int b_ran_on; /* -1 until b ran: where */
    int a_ran_on;
    int a_forks; /* a() forks while it waits */
} visible_t;

static void mark_b(void *arg)
{
    visible_t *v = arg;
    atomic_store(&v->b_ran_on, spool_current_thread_index());
}

static void wait_for_b(void *arg)
{
    visible_t *v = arg;
    v->a_ran_on = spool_current_thread_index();
    for (int ms = 0; ms < 10000 && atomic_load(&v->b_ran_on) < 0; ms++) {
        if (v->a_forks)
            for (int i = 0; i < 100; i++)
                spool_join(noop, NULL, noop, NULL);
        test_sleep_ms(1);
    }
}

static void join_waiting_for_b(void *arg)
{
    spool_join(wait_for_b, arg, mark_b, arg);
}

/* The outer join's b is the worker's oldest job, so public: the inner b is
 * pushed private (unless the other worker took the outer b already). */
static void join_under_a_public_job(void *arg)
{
    spool_join(join_waiting_for_b, arg, noop, NULL);
}

static void check_b_ran_elsewhere(spool_fn outer, int a_forks)
{
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (int round = 0; round < 20; round++) {
        visible_t v = {.a_ran_on = -1, .a_forks = a_forks};
        atomic_init(&v.b_ran_on, -1);
        assert_int_equal(spool_pool_install(pool, outer, &v), 0);
        assert_true(v.a_ran_on >= 0);
        assert_true(atomic_load(&v.b_ran_on) >= 0);
        assert_int_not_equal(atomic_load(&v.b_ran_on), v.a_ran_on);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_join_b_of_an_empty_deque_is_public(void **state)
{
    (void)state;
    check_b_ran_elsewhere(join_waiting_for_b, 0);
}

static void test_join_private_b_published_at_next_fork(void **state)
{
    (void)state;
    check_b_ran_elsewhere(join_under_a_public_job, 1);
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
        cmocka_unit_test(test_join_b_of_an_empty_deque_is_public),
        cmocka_unit_test(test_join_private_b_published_at_next_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
