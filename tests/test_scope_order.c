/* Scopes' execution orders: rayon-core's order tests (scope/test.rs and
 * the scope orders of thread_pool/test.rs), LIFO, FIFO, nested and mixed,
 * each run on a one-thread pool, where the order is fixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "order_log.h"
#include "spool.h"
#include "test_util.h"

typedef void (*scope_kind)(spool_scope_fn, void *);

/* ---- order tests: run on a one-thread pool via install ----------------- */

typedef struct order_test {
    order_log_t log;
    scope_kind outer, inner;
    order_item_t items[100];
    int outer_i[10];
} order_test_t;

static order_test_t *current_test; /* the pool has one thread */
static order_test_t T;

static void push_item(spool_scope_t *s, void *arg)
{
    (void)s;
    order_item_t *it = arg;
    order_log_push(it->log, it->value);
}

/* test_order: spawn i, which spawns j, into the same scope. */
static void spawn_inner_items(spool_scope_t *s, void *arg)
{
    int i = *(int *)arg;
    for (int j = 0; j < 10; j++)
        spool_scope_spawn(s, push_item, &current_test->items[i * 10 + j]);
}

static void order_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        spool_scope_spawn(s, spawn_inner_items, &current_test->outer_i[i]);
}

/* test_nested_order: spawn i, which opens an inner scope spawning j. */
static void nested_inner_body(spool_scope_t *s, void *arg)
{
    spawn_inner_items(s, arg);
}

static void nested_outer_job(spool_scope_t *s, void *arg)
{
    (void)s;
    current_test->inner(nested_inner_body, arg);
}

static void nested_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        spool_scope_spawn(s, nested_outer_job, &current_test->outer_i[i]);
}

/* test_mixed_order: values >= 0 into the outer scope, < 0 into the inner. */
typedef struct mixed {
    spool_scope_t *outer;
} mixed_t;

static order_item_t *item_for(int v)
{
    return &current_test->items[v + 50];
}

static void mixed_inner_body(spool_scope_t *inner, void *arg)
{
    mixed_t *m = arg;
    spool_scope_spawn(inner, push_item, item_for(-1));
    spool_scope_spawn(m->outer, push_item, item_for(1));
    spool_scope_spawn(inner, push_item, item_for(-2));
    spool_scope_spawn(m->outer, push_item, item_for(2));
    spool_scope_spawn(inner, push_item, item_for(-3));
}

static void mixed_body(spool_scope_t *outer, void *arg)
{
    (void)arg;
    mixed_t m = {outer};
    spool_scope_spawn(outer, push_item, item_for(0));
    current_test->inner(mixed_inner_body, &m);
    spool_scope_spawn(outer, push_item, item_for(3));
}

/* thread_pool/test.rs test_scope_order: 10 spawns of i. */
static void flat_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        spool_scope_spawn(s, push_item, &current_test->items[i]);
}

typedef struct run_args {
    spool_scope_fn body;
} run_args_t;

static void run_outer(void *arg)
{
    run_args_t *r = arg;
    current_test->outer(r->body, NULL);
}

static void run_order(order_test_t *t, scope_kind outer, scope_kind inner, spool_scope_fn body,
                      int item_base)
{
    order_log_init(&t->log);
    t->outer = outer;
    t->inner = inner;
    for (int i = 0; i < 100; i++)
        t->items[i] = (order_item_t){&t->log, i - item_base};
    for (int i = 0; i < 10; i++)
        t->outer_i[i] = i;
    current_test = t;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    run_args_t r = {body};
    assert_int_equal(spool_pool_install(pool, run_outer, &r), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}


static void test_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope, order_body, 0);
    expect_log_100(&T.log, order_reversed);
}

static void test_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope_fifo, order_body, 0);
    expect_log_100(&T.log, order_natural);
}

static void test_nested_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope, nested_body, 0);
    expect_log_100(&T.log, order_reversed);
}

static void test_nested_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope_fifo, nested_body, 0);
    expect_log_100(&T.log, order_natural);
}

static void test_nested_lifo_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope_fifo, nested_body, 0);
    expect_log_100(&T.log, order_i_rev_j_fwd);
}

static void test_nested_fifo_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope, nested_body, 0);
    expect_log_100(&T.log, order_i_fwd_j_rev);
}

static void test_mixed_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope, mixed_body, 50);
    const int expected[] = {-3, 2, -2, 1, -1, 3, 0};
    expect_log(&T.log, expected, 7);
}

static void test_mixed_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope_fifo, mixed_body, 50);
    const int expected[] = {-1, 0, -2, 1, -3, 2, 3};
    expect_log(&T.log, expected, 7);
}

static void test_mixed_lifo_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope_fifo, mixed_body, 50);
    const int expected[] = {-1, 2, -2, 1, -3, 3, 0};
    expect_log(&T.log, expected, 7);
}

static void test_mixed_fifo_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope, mixed_body, 50);
    const int expected[] = {-3, 0, -2, 1, -1, 2, 3};
    expect_log(&T.log, expected, 7);
}

static void test_pool_scope_lifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope, spool_scope, flat_body, 0);
    const int expected[] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    expect_log(&T.log, expected, 10);
}

static void test_pool_scope_fifo_order(void **state)
{
    (void)state;
    run_order(&T, spool_scope_fifo, spool_scope_fifo, flat_body, 0);
    const int expected[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    expect_log(&T.log, expected, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifo_order),
        cmocka_unit_test(test_fifo_order),
        cmocka_unit_test(test_nested_lifo_order),
        cmocka_unit_test(test_nested_fifo_order),
        cmocka_unit_test(test_nested_lifo_fifo_order),
        cmocka_unit_test(test_nested_fifo_lifo_order),
        cmocka_unit_test(test_mixed_lifo_order),
        cmocka_unit_test(test_mixed_fifo_order),
        cmocka_unit_test(test_mixed_lifo_fifo_order),
        cmocka_unit_test(test_mixed_fifo_lifo_order),
        cmocka_unit_test(test_pool_scope_lifo_order),
        cmocka_unit_test(test_pool_scope_fifo_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
