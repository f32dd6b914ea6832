/* spool_pool_install: runs on a worker, inline when nested in the same
 * pool, no deadlock between pools, many outside callers, and ECANCELED
 * once the pool is being destroyed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>

#include "spool.h"
#include "test_util.h"

typedef struct seen {
    int outer_index;
    int inner_index;
    int depth;
    spool_pool_t *pool;
} seen_t;

static void inner(void *arg)
{
    seen_t *s = arg;
    s->inner_index = spool_current_thread_index();
}

static void outer(void *arg)
{
    seen_t *s = arg;
    s->outer_index = spool_current_thread_index();
    /* Same pool: runs inline, on this very thread. */
    if (spool_pool_install(s->pool, inner, s) != 0)
        abort();
}

static void test_install_runs_on_worker_and_nests_inline(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    seen_t s = {.outer_index = -1, .inner_index = -1};
    assert_int_equal(spool_pool_create(&config, &s.pool), 0);
    assert_int_equal(spool_pool_install(s.pool, outer, &s), 0);
    assert_true(s.outer_index >= 0 && s.outer_index < 2);
    assert_int_equal(s.inner_index, s.outer_index);
    assert_int_equal(spool_current_thread_index(), -1);
    assert_int_equal(spool_pool_destroy(s.pool), 0);
}

/* Pool A (1 thread) installs into pool B (1 thread), which installs back
 * into A: A's only worker must keep serving A while it waits on B. */
typedef struct mutual {
    spool_pool_t *a, *b;
    int depth;
    int indices[8];
    spool_pool_t *pools_seen[8];
} mutual_t;

static void ping(void *arg)
{
    mutual_t *m = arg;
    int d = m->depth++;
    m->indices[d] = spool_current_thread_index();
    if (d < 5) {
        spool_pool_t *next = d % 2 == 0 ? m->b : m->a;
        if (spool_pool_install(next, ping, m) != 0)
            abort();
    }
}

static void test_mutual_install_does_not_deadlock(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    mutual_t m = {0};
    assert_int_equal(spool_pool_create(&config, &m.a), 0);
    assert_int_equal(spool_pool_create(&config, &m.b), 0);
    assert_int_equal(spool_pool_install(m.a, ping, &m), 0);
    assert_int_equal(m.depth, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(m.indices[i], 0);
    assert_int_equal(spool_pool_destroy(m.a), 0);
    assert_int_equal(spool_pool_destroy(m.b), 0);
}

enum { CALLERS = 8 };

typedef struct many {
    spool_pool_t *pool;
    atomic_long sum;
    unsigned long per_caller;
} many_t;

static void add_one(void *arg)
{
    many_t *m = arg;
    if (spool_current_thread_index() < 0)
        abort();
    atomic_fetch_add(&m->sum, 1);
}

static void *caller(void *arg)
{
    many_t *m = arg;
    for (unsigned long i = 0; i < m->per_caller; i++)
        if (spool_pool_install(m->pool, add_one, m) != 0)
            abort();
    return NULL;
}

static void test_many_outside_callers(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    many_t m;
    atomic_init(&m.sum, 0);
    m.per_caller = test_iters("SPOOL_TEST_INSTALL_CALLS", 2000);
    assert_int_equal(spool_pool_create(&config, &m.pool), 0);
    pthread_t t[CALLERS];
    for (int i = 0; i < CALLERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, caller, &m), 0);
    for (int i = 0; i < CALLERS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&m.sum), (long)(CALLERS * m.per_caller));
    assert_int_equal(spool_pool_destroy(m.pool), 0);
}

typedef struct blocker {
    spool_pool_t *pool;
    atomic_bool started, release, finished;
    int install_err, destroy_err;
} blocker_t;

static void block_until_released(void *arg)
{
    blocker_t *b = arg;
    atomic_store(&b->started, true);
    while (!atomic_load(&b->release))
        test_sleep_ms(1);
    atomic_store(&b->finished, true);
}

static void *install_blocker(void *arg)
{
    blocker_t *b = arg;
    b->install_err = spool_pool_install(b->pool, block_until_released, b);
    return NULL;
}

static void *destroyer(void *arg)
{
    blocker_t *b = arg;
    b->destroy_err = spool_pool_destroy(b->pool);
    /* Destroy waited for the job in flight. */
    if (!atomic_load(&b->finished))
        abort();
    return NULL;
}

static void noop(void *arg)
{
    (void)arg;
}

static void test_install_during_destroy_is_canceled(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    blocker_t b = {0};
    atomic_init(&b.started, false);
    atomic_init(&b.release, false);
    atomic_init(&b.finished, false);
    assert_int_equal(spool_pool_create(&config, &b.pool), 0);
    pthread_t installer, killer;
    assert_int_equal(pthread_create(&installer, NULL, install_blocker, &b), 0);
    while (!atomic_load(&b.started))
        test_sleep_ms(1);
    assert_int_equal(pthread_create(&killer, NULL, destroyer, &b), 0);
    /* The blocked job keeps the pool alive; once destroy has begun, new
     * installs are refused. */
    int err = 0;
    for (int i = 0; i < 10000 && err == 0; i++) {
        err = spool_pool_install(b.pool, noop, NULL);
        if (err == 0)
            test_sleep_ms(1);
    }
    assert_int_equal(err, ECANCELED);
    atomic_store(&b.release, true);
    pthread_join(installer, NULL);
    pthread_join(killer, NULL);
    assert_int_equal(b.install_err, 0);
    assert_int_equal(b.destroy_err, 0);
    assert_true(atomic_load(&b.finished));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_install_runs_on_worker_and_nests_inline),
        cmocka_unit_test(test_mutual_install_does_not_deadlock),
        cmocka_unit_test(test_many_outside_callers),
        cmocka_unit_test(test_install_during_destroy_is_canceled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
