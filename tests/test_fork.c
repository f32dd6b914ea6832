/* fork(): a child forked while pools exist (and are busy) can use join,
 * scopes, spawns and the global pool; the parent's pools refuse with
 * ENOTRECOVERABLE instead of hanging.  Also a fork from inside a worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spool.h"
#include "test_util.h"

static atomic_long scope_sum;
static atomic_bool spawned;

static void add_index(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&scope_sum, (long)(intptr_t)arg);
}

static void sum_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (intptr_t i = 0; i < 100; i++)
        spool_scope_spawn(s, add_index, (void *)i);
}

static void mark_spawned(void *arg)
{
    (void)arg;
    atomic_store(&spawned, true);
}

static void noop_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
}

static void add_one_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
    atomic_fetch_add(&scope_sum, 1);
}

/* In the child: returns 0 if everything works, else the number of the
 * failed check. */
static int child_checks(spool_pool_t *parent_pool)
{
    fib_task_t t = {20, 0};
    fib_join(&t);
    if (t.result != fib_expected(20))
        return 1;
    atomic_store(&scope_sum, 0);
    spool_scope(sum_body, NULL);
    if (atomic_load(&scope_sum) != 4950)
        return 2;
    atomic_store(&spawned, false);
    if (spool_spawn(mark_spawned, NULL) != 0)
        return 3;
    for (int i = 0; i < 5000 && !atomic_load(&spawned); i++)
        test_sleep_ms(1);
    if (!atomic_load(&spawned))
        return 4;
    if (spool_current_thread_index() != -1 || spool_current_num_threads() < 1)
        return 5;
    if (parent_pool != NULL) {
        if (spool_pool_install(parent_pool, test_nothing, NULL) != ENOTRECOVERABLE)
            return 6;
        if (spool_pool_spawn(parent_pool, test_nothing, NULL) != ENOTRECOVERABLE)
            return 7;
        if (spool_pool_broadcast(parent_pool, noop_broadcast, NULL) != ENOTRECOVERABLE ||
            spool_pool_spawn_broadcast(parent_pool, noop_broadcast, NULL, NULL) != ENOTRECOVERABLE)
            return 12;
        if (spool_pool_destroy(parent_pool) != ENOTRECOVERABLE)
            return 8;
    }
    /* The global pool of the child: a broadcast and a loop. */
    atomic_store(&scope_sum, 0);
    if (spool_broadcast(add_one_broadcast, NULL) != 0 ||
        atomic_load(&scope_sum) != (long)spool_current_num_threads()) /* every index */
        return 13;
    /* A new pool works in the child. */
    spool_pool_t *pool;
    spool_config_t config = {.num_threads = 2};
    if (spool_pool_create(&config, &pool) != 0)
        return 9;
    fib_task_t u = {18, 0};
    if (spool_pool_install(pool, fib_join, &u) != 0 || u.result != fib_expected(18))
        return 10;
    if (spool_pool_destroy(pool) != 0)
        return 11;
    return 0;
}

static int wait_child(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

typedef struct busy {
    spool_pool_t *pool;
    atomic_bool stop;
} busy_t;

static void *keep_pool_busy(void *arg)
{
    busy_t *b = arg;
    while (!atomic_load(&b->stop)) {
        fib_task_t t = {15, 0};
        if (spool_pool_install(b->pool, fib_join, &t) != 0)
            abort();
    }
    return NULL;
}

static void test_fork_while_pools_run(void **state)
{
    (void)state;
    fib_task_t warm = {18, 0};
    fib_join(&warm); /* the global pool exists */
    busy_t b;
    atomic_init(&b.stop, false);
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&config, &b.pool), 0);
    pthread_t busy_thread;
    assert_int_equal(pthread_create(&busy_thread, NULL, keep_pool_busy, &b), 0);
    test_sleep_ms(20);
    for (int round = 0; round < 5; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(child_checks(b.pool));
        assert_int_equal(wait_child(pid), 0);
    }
    atomic_store(&b.stop, true);
    pthread_join(busy_thread, NULL);
    /* The parent's pools are unaffected. */
    fib_task_t t = {20, 0};
    assert_int_equal(spool_pool_install(b.pool, fib_join, &t), 0);
    assert_int_equal(t.result, fib_expected(20));
    assert_int_equal(spool_pool_destroy(b.pool), 0);
}

static void fork_on_worker(void *arg)
{
    int *result = arg;
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_checks(NULL)); /* the child's thread is no worker */
    *result = pid < 0 ? -1 : wait_child(pid);
}

/* In a static, so that the pool stays referenced in the child, whose only
 * thread is the worker (valgrind would call it lost otherwise). */
static spool_pool_t *worker_fork_pool;

static void test_fork_from_a_worker(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    worker_fork_pool = pool;
    int result = -2;
    assert_int_equal(spool_pool_install(pool, fork_on_worker, &result), 0);
    assert_int_equal(result, 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_while_pools_run),
        cmocka_unit_test(test_fork_from_a_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
