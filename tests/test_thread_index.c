/* Thread identity: worker indices, pool sizes, and the global pool's
 * configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "spool.h"
#include "test_util.h"

static _Thread_local int started_as = -1;
static atomic_int index_mismatches;

static void remember_index(void *ctx, unsigned index)
{
    (void)ctx;
    started_as = (int)index;
}

typedef struct probe {
    unsigned depth;
    atomic_uint seen_mask;
    unsigned num_threads;
} probe_t;

typedef struct node {
    probe_t *p;
    unsigned depth;
} node_t;

static void visit(void *arg)
{
    node_t *n = arg;
    int index = spool_current_thread_index();
    if (index != started_as || spool_current_num_threads() != n->p->num_threads)
        atomic_fetch_add(&index_mismatches, 1);
    atomic_fetch_or(&n->p->seen_mask, 1u << index);
    if (n->depth == 0) {
        test_sleep_ms(1);
        return;
    }
    node_t a = {n->p, n->depth - 1}, b = {n->p, n->depth - 1};
    spool_join(visit, &a, visit, &b);
}

static void test_indices_inside_a_pool(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 4, .start_handler = remember_index};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    probe_t p = {.num_threads = 4};
    atomic_init(&p.seen_mask, 0);
    node_t root = {&p, 8};
    assert_int_equal(spool_pool_install(pool, visit, &root), 0);
    assert_int_equal(atomic_load(&index_mismatches), 0);
    /* Every index seen is in range, and some worker ran the tree. */
    assert_int_equal(atomic_load(&p.seen_mask) & ~0xFu, 0);
    assert_true(atomic_load(&p.seen_mask) != 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_outside_and_global(void **state)
{
    (void)state;
    assert_int_equal(spool_current_thread_index(), -1);
    spool_config_t config = {.num_threads = 3};
    assert_int_equal(spool_global_init(&config), 0);
    /* Three workers, and the slot the global pool lends to an outside
     * caller (index 3). */
    assert_int_equal(spool_current_num_threads(), 4);
    assert_int_equal(spool_global_init(&config), EALREADY);
    assert_int_equal(spool_global_init(NULL), EALREADY);
    assert_int_equal(spool_current_thread_index(), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outside_and_global),
        cmocka_unit_test(test_indices_inside_a_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
