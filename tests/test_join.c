/* spool_join and spool_join_inline (spool_inline.h): recursive fib from
 * outside any pool and inside pools of 1, 2, 4 and 16 threads; a chain of
 * joins deep enough to grow the deque while b waits in it; both halves run;
 * b is visible to idle workers; NULL functions abort.  Every test runs once
 * with each join. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spool.h"
#include "spool_inline.h"
#include "test_util.h"

typedef void (*join_fn)(spool_fn a, void *arg_a, spool_fn b, void *arg_b);

/* spool_join_inline compiled into a function of its own, so that the tests
 * can take turns through one pointer: the inline path is still this
 * function's own code. */
static void join_inline(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    spool_join_inline(a, arg_a, b, arg_b);
}

static join_fn join = spool_join;

static int use_spool_join(void **state)
{
    (void)state;
    join = spool_join;
    return 0;
}
static int use_join_inline(void **state)
{
    (void)state;
    join = join_inline;
    return 0;
}

/* fib with the join inlined where it is called, as a user writes it. */
static void fib_inline(void *arg)
{
    fib_task_t *t = (fib_task_t *)arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join_inline(fib_inline, &a, fib_inline, &b);
    t->result = a.result + b.result;
}

static spool_fn fib_of_this_test(void)
{
    return join == spool_join ? fib_join : fib_inline;
}

static void test_fib_outside_any_pool(void **state)
{
    (void)state;
    fib_task_t t = {25, 0};
    fib_of_this_test()(&t); /* the first join enters the global pool */
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
        assert_int_equal(spool_pool_install(pool, fib_of_this_test(), &t), 0);
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

/* A chain of joins, each a's own join nested: thousands of b's wait in one
 * deque, which grows while they do (the fast push fails at its limit, the
 * slow one grows the buffer), so each pop after a finds b in a newer
 * buffer.  Each b counts once. */
typedef struct chain {
    unsigned depth;
    atomic_ulong *b_runs;
} chain_t;

static void count_b(void *arg)
{
    atomic_fetch_add((atomic_ulong *)arg, 1);
}

static void descend(void *arg)
{
    chain_t *c = arg;
    if (c->depth == 0)
        return;
    chain_t next = {c->depth - 1, c->b_runs};
    join(descend, &next, count_b, c->b_runs);
}

static void test_join_chain_grows_the_deque(void **state)
{
    (void)state;
    enum { DEPTH = 5000 };
    for (unsigned threads = 1; threads <= 2; threads++) {
        spool_config_t config = {.num_threads = threads, .stack_size = 64u << 20};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        atomic_ulong b_runs;
        atomic_init(&b_runs, 0);
        chain_t c = {DEPTH, &b_runs};
        assert_int_equal(spool_pool_install(pool, descend, &c), 0);
        assert_int_equal(atomic_load(&b_runs), DEPTH);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
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
        join(record, &a, record, &b);
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
                join(noop, NULL, noop, NULL);
        test_sleep_ms(1);
    }
}

static void join_waiting_for_b(void *arg)
{
    join(wait_for_b, arg, mark_b, arg);
}

/* The outer join's b is the worker's oldest job, so public: the inner b is
 * pushed private (unless the other worker took the outer b already). */
static void join_under_a_public_job(void *arg)
{
    join(join_waiting_for_b, arg, noop, NULL);
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

/* Through a volatile pointer, so that the inline join cannot see the NULL
 * coming. */
static spool_fn volatile no_function = NULL;

static void join_null_a(void)
{
    join(no_function, NULL, noop, NULL);
}
static void join_null_b(void)
{
    join(noop, NULL, no_function, NULL);
}

static void test_join_null_function_aborts(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(join_null_a, "spool_join: NULL function"), 0);
    assert_int_equal(test_expect_abort(join_null_b, "spool_join: NULL function"), 0);
}

int main(void)
{
#define BOTH_JOINS(test)                                                                           \
    {#test, test, use_spool_join, NULL, NULL}, {#test " (inline)", test, use_join_inline, NULL, NULL}
    const struct CMUnitTest tests[] = {
        BOTH_JOINS(test_join_null_function_aborts),
        BOTH_JOINS(test_fib_outside_any_pool),
        BOTH_JOINS(test_fib_pool_1),
        BOTH_JOINS(test_fib_pool_2),
        BOTH_JOINS(test_fib_pool_4),
        BOTH_JOINS(test_fib_pool_16),
        BOTH_JOINS(test_join_chain_grows_the_deque),
        BOTH_JOINS(test_join_halves_run_once_and_get_stolen),
        BOTH_JOINS(test_join_b_of_an_empty_deque_is_public),
        BOTH_JOINS(test_join_private_b_published_at_next_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
