/* Scopes: sums, trees, stack growth, nested scopes across pools, in-place
 * scopes, credits, bad input (the execution orders: test_scope_order.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "spool.h"
#include "test_util.h"

typedef void (*scope_kind)(spool_scope_fn, void *);

/* ---- sums and trees on multi-thread pools ------------------------------ */

typedef struct sum {
    atomic_long total;
    long values[100];
} sum_t;

static sum_t S;

static void add_value(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&S.total, *(long *)arg);
}

static void sum_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        assert_int_equal(spool_scope_spawn(s, add_value, &S.values[i]), 0);
}

static void test_scope_sums(void **state)
{
    (void)state;
    scope_kind kinds[] = {spool_scope, spool_scope_fifo, spool_in_place_scope,
                          spool_in_place_scope_fifo};
    for (int i = 0; i < 100; i++)
        S.values[i] = i;
    for (size_t k = 0; k < 4; k++) {
        atomic_init(&S.total, 0);
        kinds[k](sum_body, NULL);
        assert_int_equal(atomic_load(&S.total), 4950);
    }
}

static atomic_long leaves;

static void divide(spool_scope_t *s, void *arg)
{
    uintptr_t size = (uintptr_t)arg;
    if (size > 1) {
        spool_scope_spawn(s, divide, (void *)(size / 2));
        spool_scope_spawn(s, divide, (void *)(size / 2));
    } else {
        atomic_fetch_add(&leaves, 1);
    }
}

static void divide_body(spool_scope_t *s, void *arg)
{
    spool_scope_spawn(s, divide, arg);
}

static void test_divide_and_conquer(void **state)
{
    (void)state;
    atomic_init(&leaves, 0);
    spool_scope(divide_body, (void *)(uintptr_t)1024);
    assert_int_equal(atomic_load(&leaves), 1024);
    atomic_init(&leaves, 0);
    spool_scope_fifo(divide_body, (void *)(uintptr_t)1024);
    assert_int_equal(atomic_load(&leaves), 1024);
}

/* A random tree of depth 10 (0 to 3 children per node); every node is
 * updated exactly once. */
typedef struct tree {
    unsigned value;
    unsigned updates;
    unsigned num_children;
    struct tree *children;
} tree_t;

static uint64_t rng_state;

static unsigned next_rand(unsigned bound)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % bound);
}

static void tree_build(tree_t *t, int depth, unsigned long *count)
{
    (*count)++;
    t->value = next_rand(1000000);
    t->updates = 0;
    t->num_children = depth == 0 ? 0 : next_rand(4);
    t->children = t->num_children ? calloc(t->num_children, sizeof *t->children) : NULL;
    for (unsigned i = 0; i < t->num_children; i++)
        tree_build(&t->children[i], depth - 1, count);
}

static void tree_update(spool_scope_t *s, void *arg);

static void tree_spawn_children(spool_scope_t *s, void *arg)
{
    tree_t *t = arg;
    for (unsigned i = 0; i < t->num_children; i++)
        spool_scope_spawn(s, tree_update, &t->children[i]);
}

static void tree_update(spool_scope_t *s, void *arg)
{
    tree_t *t = arg;
    spool_scope_spawn(s, tree_spawn_children, t);
    t->value++;
    t->updates++;
}

static void tree_check_free(tree_t *t, unsigned long *count, unsigned long *bad)
{
    (*count)++;
    *bad += t->updates != 1;
    for (unsigned i = 0; i < t->num_children; i++)
        tree_check_free(&t->children[i], count, bad);
    free(t->children);
}

static void test_update_random_tree(void **state)
{
    (void)state;
    scope_kind kinds[] = {spool_scope, spool_scope_fifo};
    for (int k = 0; k < 2; k++) {
        rng_state = 0x123456789abcdefULL;
        tree_t root;
        unsigned long built = 0;
        do {
            built = 0;
            tree_build(&root, 10, &built);
            if (built < 50) { /* a degenerate draw: try the next one */
                unsigned long c = 0, b = 0;
                tree_check_free(&root, &c, &b);
            }
        } while (built < 50);
        kinds[k](tree_update, &root);
        unsigned long checked = 0, bad = 0;
        tree_check_free(&root, &checked, &bad);
        assert_int_equal(checked, built);
        assert_int_equal(bad, 0);
    }
}

/* ---- stack growth: waiting in a scope runs jobs at the same depth ------ */

typedef struct countdown {
    char *bottom;
    size_t max_diff;
} countdown_t;

static countdown_t CD;

static void the_final_countdown(spool_scope_t *s, void *arg)
{
    char top;
    uintptr_t n = (uintptr_t)arg;
    size_t diff = CD.bottom > &top ? (size_t)(CD.bottom - &top) : (size_t)(&top - CD.bottom);
    if (diff > CD.max_diff)
        CD.max_diff = diff;
    if (n > 0)
        spool_scope_spawn(s, the_final_countdown, (void *)(n - 1));
}

static void measure_stack(void *arg)
{
    double *ratio = arg;
    char bottom;
    CD.bottom = &bottom;
    CD.max_diff = 0;
    spool_scope(the_final_countdown, (void *)(uintptr_t)5);
    double diff5 = (double)CD.max_diff;
    spool_scope(the_final_countdown, (void *)(uintptr_t)500);
    double diff500 = (double)CD.max_diff;
    *ratio = diff5 / diff500;
}

static void test_linear_stack_growth(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    double ratio = 0;
    assert_int_equal(spool_pool_install(pool, measure_stack, &ratio), 0);
    print_message("stack ratio (chain of 5 / chain of 500): %.3f\n", ratio);
    assert_true(ratio > 0.9 && ratio < 1.1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- nested scopes across 10 one-thread pools -------------------------- */

enum { NEST = 10 };

typedef struct nest {
    spool_pool_t *pools[NEST];
    spool_scope_t *scopes[NEST];
    int depth;
    atomic_int counter;
} nest_t;

static nest_t N;

static void count_one(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_fetch_add(&N.counter, 1);
}

static void nest_install(void *arg);

static void nest_body(spool_scope_t *s, void *arg)
{
    int d = (int)(intptr_t)arg;
    N.scopes[d] = s;
    if (d + 1 < NEST) {
        if (spool_pool_install(N.pools[d + 1], nest_install, (void *)(intptr_t)(d + 1)) != 0)
            abort();
    } else {
        /* Spawn into every scope, each owned by another pool's worker. */
        for (int i = 0; i < NEST; i++)
            if (spool_scope_spawn(N.scopes[i], count_one, NULL) != 0)
                abort();
    }
}

static void nest_install(void *arg)
{
    spool_scope(nest_body, arg);
}

static void test_nested_scopes_across_pools(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    for (int i = 0; i < NEST; i++)
        assert_int_equal(spool_pool_create(&config, &N.pools[i]), 0);
    atomic_init(&N.counter, 0);
    assert_int_equal(spool_pool_install(N.pools[0], nest_install, (void *)(intptr_t)0), 0);
    assert_int_equal(atomic_load(&N.counter), NEST);
    for (int i = 0; i < NEST; i++)
        assert_int_equal(spool_pool_destroy(N.pools[i]), 0);
}

/* ---- in-place scope whose body waits for its own spawn ----------------- */

static atomic_bool spawned_ran;
static bool seen_while_waiting; /* the body saw its spawn run */

static void set_ran(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_store(&spawned_ran, true);
}

static void wait_for_own_spawn(spool_scope_t *s, void *arg)
{
    (void)arg;
    assert_int_equal(spool_scope_spawn(s, set_ran, NULL), 0);
    /* With spool_scope this would block the pool's only worker. */
    for (int ms = 0; ms < 10000 && !atomic_load(&spawned_ran); ms++)
        test_sleep_ms(1);
    seen_while_waiting = atomic_load(&spawned_ran);
}

static void test_in_place_scope_no_deadlock(void **state)
{
    (void)state;
    /* main() made the global pool one worker wide (and its caller slot,
     * which an in-place scope does not take). */
    assert_int_equal(spool_current_num_threads(), 2);
    atomic_init(&spawned_ran, false);
    spool_in_place_scope(wait_for_own_spawn, NULL);
    assert_true(seen_while_waiting);
    atomic_init(&spawned_ran, false);
    spool_in_place_scope_fifo(wait_for_own_spawn, NULL);
    assert_true(seen_while_waiting);
}

/* On a worker whose deque holds a public job already, an in-place scope's
 * spawn would stay private (deque.md); the body may block until it has run
 * all the same, so in-place scopes publish their spawns at once. */
static void in_place_waiting_body(void *arg)
{
    (void)arg;
    spool_in_place_scope(wait_for_own_spawn, NULL);
}

static void noop_fn(void *arg)
{
    (void)arg;
}

static void in_place_under_a_public_job(void *arg)
{
    (void)arg;
    spool_join(in_place_waiting_body, NULL, noop_fn, NULL);
}

static void test_in_place_scope_on_a_busy_worker(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (int round = 0; round < 20; round++) {
        atomic_store(&spawned_ran, false);
        seen_while_waiting = false;
        assert_int_equal(spool_pool_install(pool, in_place_under_a_public_job, NULL), 0);
        assert_true(seen_while_waiting);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* Credits across scopes (src/deque/deque.md): spawns into the outer scope from its
 * own worker (local) and from others (counted), from jobs of a nested scope,
 * published or popped back; every spawn runs once before its scope ends. */
typedef struct credits {
    spool_scope_t *outer;
    atomic_long ran;
} credits_t;

static void credit_leaf(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&((credits_t *)arg)->ran, 1);
}

static void credit_inner_body(spool_scope_t *inner, void *arg)
{
    credits_t *c = arg;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(spool_scope_spawn(inner, credit_leaf, c), 0);
        assert_int_equal(spool_scope_spawn(c->outer, credit_leaf, c), 0);
    }
}

static void credit_mid(spool_scope_t *s, void *arg)
{
    credits_t *c = arg;
    atomic_fetch_add(&c->ran, 1);
    assert_int_equal(spool_scope_spawn(s, credit_leaf, c), 0);
    spool_scope(credit_inner_body, c);
}

static void credit_outer_body(spool_scope_t *s, void *arg)
{
    credits_t *c = arg;
    c->outer = s;
    for (int i = 0; i < 50; i++)
        assert_int_equal(spool_scope_spawn(s, credit_mid, c), 0);
}

static void credit_install(void *arg)
{
    spool_scope(credit_outer_body, arg);
}

static void test_credits_across_scopes(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_CREDIT_ROUNDS", 200);
    unsigned threads[] = {1, 2, 4};
    for (size_t k = 0; k < 3; k++) {
        spool_config_t config = {.num_threads = threads[k]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        for (unsigned long r = 0; r < rounds; r++) {
            credits_t c = {0};
            atomic_init(&c.ran, 0);
            assert_int_equal(spool_pool_install(pool, credit_install, &c), 0);
            /* 50 mids, each: itself, 1 leaf, 3 inner and 3 outer leaves. */
            assert_int_equal(atomic_load(&c.ran), 50 * 8);
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

static void noop_scope_fn(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
}

static void null_checks_body(spool_scope_t *s, void *arg)
{
    int *err = arg;
    err[0] = spool_scope_spawn(NULL, noop_scope_fn, NULL);
    err[1] = spool_scope_spawn(s, NULL, NULL);
}

static void scope_fifo_null(void)
{
    spool_scope_fifo(NULL, NULL);
}

static void test_bad_input(void **state)
{
    (void)state;
    int err[2] = {0, 0};
    spool_scope(null_checks_body, err);
    assert_int_equal(err[0], EINVAL);
    assert_int_equal(err[1], EINVAL);
    /* A NULL body aborts with a message naming the function. */
    assert_int_equal(test_expect_abort(scope_fifo_null, "spool_scope_fifo: NULL function"), 0);
}

int main(void)
{
    spool_config_t global = {.num_threads = 1};
    if (spool_global_init(&global) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_scope_sums),
        cmocka_unit_test(test_divide_and_conquer),
        cmocka_unit_test(test_update_random_tree),
        cmocka_unit_test(test_linear_stack_growth),
        cmocka_unit_test(test_nested_scopes_across_pools),
        cmocka_unit_test(test_in_place_scope_no_deadlock),
        cmocka_unit_test(test_in_place_scope_on_a_busy_worker),
        cmocka_unit_test(test_credits_across_scopes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
