/* Pool lifecycle: create/destroy, handlers, configuration, errors, and
 * clean failure when threads cannot be created. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "spool.h"
#include "platform/test_hooks.h"
#include "scheduler/pool.h"
#include "test_util.h"

enum { MAX_INDEX = 64 };

typedef struct counts {
    atomic_int starts[MAX_INDEX];
    atomic_int exits[MAX_INDEX];
    atomic_int bad_names;
    const char *expected_name;
} counts_t;

static void on_start(void *ctx, unsigned index)
{
    counts_t *c = ctx;
    atomic_fetch_add(&c->starts[index], 1);
    if (c->expected_name != NULL) {
        char name[32], expected[32];
        pthread_getname_np(pthread_self(), name, sizeof name);
        snprintf(expected, sizeof expected, "%s-%u", c->expected_name, index);
        if (strcmp(name, expected) != 0)
            atomic_fetch_add(&c->bad_names, 1);
    }
}

static void on_exit_handler(void *ctx, unsigned index)
{
    counts_t *c = ctx;
    atomic_fetch_add(&c->exits[index], 1);
}

static void test_create_destroy_200_times(void **state)
{
    (void)state;
    int threads_before = test_os_threads();
    unsigned long rounds = test_iters("SPOOL_TEST_LIFECYCLE_ROUNDS", 200);
    for (unsigned long r = 0; r < rounds; r++) {
        counts_t c;
        memset(&c, 0, sizeof c);
        c.expected_name = "life";
        unsigned n = 1 + (unsigned)(r % 4);
        spool_config_t config = {.num_threads = n,
                                 .thread_name = "life",
                                 .start_handler = on_start,
                                 .exit_handler = on_exit_handler,
                                 .handler_ctx = &c};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        assert_int_equal(spool_pool_num_threads(pool), n);
        assert_int_equal(spool_pool_destroy(pool), 0);
        for (unsigned i = 0; i < MAX_INDEX; i++) {
            assert_int_equal(atomic_load(&c.starts[i]), i < n);
            assert_int_equal(atomic_load(&c.exits[i]), i < n);
        }
        assert_int_equal(atomic_load(&c.bad_names), 0);
    }
    assert_true(test_os_threads_at_most(threads_before) <= threads_before);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    assert_int_equal(spool_pool_create(NULL, NULL), EINVAL);
    spool_pool_t *pool = NULL;
    spool_config_t too_many = {.num_threads = SPOOL_MAX_THREADS + 1};
    assert_int_equal(spool_pool_create(&too_many, &pool), EINVAL);
    assert_null(pool);
    assert_int_equal(spool_pool_destroy(NULL), EINVAL);
    assert_int_equal(spool_pool_install(NULL, NULL, NULL), EINVAL);
    assert_int_equal(spool_pool_num_threads(NULL), 0);
    /* NULL config and a zeroed one both mean defaults. */
    assert_int_equal(spool_pool_create(NULL, &pool), 0);
    assert_true(spool_pool_num_threads(pool) >= 1);
    assert_int_equal(spool_pool_install(pool, NULL, NULL), EINVAL);
    assert_int_equal(spool_pool_destroy(pool), 0);
    spool_config_t zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(spool_pool_create(&zero, &pool), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_num_threads_from_environment(void **state)
{
    (void)state;
    spool_pool_t *pool;
    setenv("SPOOL_NUM_THREADS", "3", 1);
    assert_int_equal(spool_pool_create(NULL, &pool), 0);
    assert_int_equal(spool_pool_num_threads(pool), 3);
    assert_int_equal(spool_pool_destroy(pool), 0);
    spool_config_t config = {.num_threads = 2}; /* explicit wins */
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_num_threads(pool), 2);
    assert_int_equal(spool_pool_destroy(pool), 0);
    setenv("SPOOL_NUM_THREADS", "zero", 1); /* not a positive integer */
    assert_int_equal(spool_pool_create(NULL, &pool), 0);
    assert_int_equal(spool_pool_num_threads(pool), (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    assert_int_equal(spool_pool_destroy(pool), 0);
    unsetenv("SPOOL_NUM_THREADS");
}

static void test_impossible_stack_size(void **state)
{
    (void)state;
    int threads_before = test_os_threads();
    counts_t c;
    memset(&c, 0, sizeof c);
    spool_config_t config = {.num_threads = 4,
                             .stack_size = (size_t)1 << 46, /* 64 TiB */
                             .start_handler = on_start,
                             .exit_handler = on_exit_handler,
                             .handler_ctx = &c};
    spool_pool_t *pool = NULL;
    int err = spool_pool_create(&config, &pool);
    assert_true(err == EAGAIN || err == ENOMEM || err == EINVAL);
    assert_null(pool);
    assert_true(test_os_threads_at_most(threads_before) <= threads_before);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(atomic_load(&c.starts[i]), atomic_load(&c.exits[i]));
}

static void test_nth_thread_creation_fails(void **state)
{
    (void)state;
    int threads_before = test_os_threads();
    for (int nth = 1; nth <= 4; nth++) {
        counts_t c;
        memset(&c, 0, sizeof c);
        spool_config_t config = {.num_threads = 4,
                                 .start_handler = on_start,
                                 .exit_handler = on_exit_handler,
                                 .handler_ctx = &c};
        spool_pool_t *pool = NULL;
        spool__test_fail_thread_create(nth, EAGAIN);
        assert_int_equal(spool_pool_create(&config, &pool), EAGAIN);
        assert_null(pool);
        assert_true(test_os_threads_at_most(threads_before) <= threads_before);
        /* The nth-1 threads that started ran both handlers. */
        for (int i = 0; i < 4; i++) {
            assert_int_equal(atomic_load(&c.starts[i]), i < nth - 1);
            assert_int_equal(atomic_load(&c.exits[i]), i < nth - 1);
        }
    }
}

/* Each step of a pool's creation, failed in turn: creation returns that
 * step's error with no pool, and undoes the steps before it (the ASan and
 * valgrind builds fail on what it leaks); with no step failed it works. */
static void test_each_creation_step_fails(void **state)
{
    (void)state;
    int threads_before = test_os_threads();
    spool_config_t config = {.num_threads = 3};
    spool__test_fail_pool_step(0);
    spool_pool_t *pool = NULL;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
    int steps = spool__test_fail_pool_step(0);
    /* Sleep, injector, job pool, two block depots, a mutex, the workers'
     * array, four workers (three and the caller slot's), places, the
     * timeline. */
    assert_true(steps >= 12);
    for (int nth = 1; nth <= steps; nth++) {
        pool = NULL;
        spool__test_fail_pool_step(nth);
        assert_int_equal(spool_pool_create(&config, &pool), ENOMEM);
        assert_null(pool);
        assert_true(test_os_threads_at_most(threads_before) <= threads_before);
    }
    spool__test_fail_pool_step(steps + 1);
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    spool__test_fail_pool_step(0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

typedef struct self_destroy {
    spool_pool_t *pool;
    int err;
} self_destroy_t;

static void destroy_own_pool(void *arg)
{
    self_destroy_t *s = arg;
    s->err = spool_pool_destroy(s->pool);
}

static void test_destroy_from_worker_is_edeadlk(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    self_destroy_t s = {0};
    assert_int_equal(spool_pool_create(&config, &s.pool), 0);
    assert_int_equal(spool_pool_install(s.pool, destroy_own_pool, &s), 0);
    assert_int_equal(s.err, EDEADLK);
    /* Nothing was done: the pool still works. */
    assert_int_equal(spool_pool_install(s.pool, destroy_own_pool, &s), 0);
    assert_int_equal(spool_pool_destroy(s.pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_num_threads_from_environment),
        cmocka_unit_test(test_create_destroy_200_times),
        cmocka_unit_test(test_impossible_stack_size),
        cmocka_unit_test(test_nth_thread_creation_fails),
        cmocka_unit_test(test_each_creation_step_fails),
        cmocka_unit_test(test_destroy_from_worker_is_edeadlk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
