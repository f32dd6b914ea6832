/* Stack depth: a chain of nested spool_join calls 20,000 deep completes on
 * workers with a documented stack_size, and stack_size is honoured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "spool.h"
#include "test_util.h"

typedef struct chain {
    unsigned depth;
    unsigned long reached;
    char *base; /* stack address at the top of the chain */
    size_t used;
} chain_t;

static chain_t *root_chain;

static void nothing(void *arg)
{
    (void)arg;
}

static void descend(void *arg)
{
    chain_t *c = arg;
    char here;
    /* Signed: the first frame may sit above base (run_chain tail-calls). */
    ptrdiff_t used = root_chain->base - &here;
    if (used > 0 && (size_t)used > root_chain->used)
        root_chain->used = (size_t)used;
    if (c->depth == 0) {
        root_chain->reached++;
        return;
    }
    chain_t next = {c->depth - 1, 0, NULL, 0};
    spool_join(descend, &next, nothing, NULL);
    root_chain->reached += next.reached > 0;
}

static void run_chain(void *arg)
{
    chain_t *c = arg;
    char base;
    c->base = &base;
    root_chain = c;
    descend(c);
}

/* 20,000 nested joins on workers with a 64 MiB stack (the size the header
 * documents); prints the stack used per level. */
static void test_join_depth_20000(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2, .stack_size = (size_t)64 << 20};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    chain_t c = {20000, 0, NULL, 0};
    assert_int_equal(spool_pool_install(pool, run_chain, &c), 0);
    assert_int_equal(c.reached, 1);
    print_message("20000 nested joins used %zu bytes of stack (%.0f per level)\n", c.used,
                  (double)c.used / 20000);
    assert_true(c.used < config.stack_size);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void report_stack_size(void *arg)
{
    size_t *size = arg;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        abort();
    pthread_attr_getstacksize(&attr, size);
    pthread_attr_destroy(&attr);
}

static void test_stack_size_is_honoured(void **state)
{
    (void)state;
    size_t sizes[] = {(size_t)256 << 10, (size_t)3 << 20, (size_t)64 << 20};
    for (size_t i = 0; i < 3; i++) {
        spool_config_t config = {.num_threads = 1, .stack_size = sizes[i]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        size_t got = 0;
        assert_int_equal(spool_pool_install(pool, report_stack_size, &got), 0);
        /* The system may round up (pages; a sanitizer's own minimum), never
         * down, and a default-sized stack would be far off. */
        print_message("stack_size %zu: the worker's stack is %zu bytes\n", sizes[i], got);
        assert_true(got >= sizes[i] && got < sizes[i] + (sizes[i] > ((size_t)1 << 20) ? sizes[i] / 8 : ((size_t)1 << 20)));
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_size_is_honoured),
        cmocka_unit_test(test_join_depth_20000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
