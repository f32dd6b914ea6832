/* When the global pool cannot start, work still completes on the calling
 * thread (joins, loops, reductions and broadcasts); a later
 * spool_global_init may still start it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>

#include "spool.h"
#include "platform/test_hooks.h"
#include "test_util.h"

typedef struct counted_fib {
    unsigned n;
    unsigned long result;
    atomic_int *outside_runs;
} counted_fib_t;

static void counted_fib(void *arg)
{
    counted_fib_t *t = arg;
    if (spool_current_thread_index() < 0)
        atomic_fetch_add(t->outside_runs, 1);
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    counted_fib_t a = {t->n - 1, 0, t->outside_runs}, b = {t->n - 2, 0, t->outside_runs};
    spool_join(counted_fib, &a, counted_fib, &b);
    t->result = a.result + b.result;
}

static atomic_int caller_runs;
static pthread_t caller;

static void on_caller(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    if (index == 0 && n == 1 && pthread_equal(pthread_self(), caller))
        atomic_fetch_add(&caller_runs, 1);
}

static void released_on_caller(void *ctx)
{
    (void)ctx;
    if (pthread_equal(pthread_self(), caller))
        atomic_fetch_add(&caller_runs, 100);
}

static void count_range(void *ctx, size_t begin, size_t end)
{
    if (pthread_equal(pthread_self(), caller))
        atomic_fetch_add((atomic_long *)ctx, (long)(end - begin));
}

static void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(long *)acc = 0;
}
static void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    (void)ctx;
    for (size_t i = begin; i < end; i++)
        *(long *)acc += (long)i;
}
static void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(long *)left += *(const long *)right;
}

/* Loops and broadcasts with no pool: all of it on the caller. */
static void loops_and_broadcasts_without_pool(void)
{
    caller = pthread_self();
    atomic_store(&caller_runs, 0);
    assert_int_equal(spool_broadcast(on_caller, NULL), 0);
    assert_int_equal(atomic_load(&caller_runs), 1);
    assert_int_equal(spool_spawn_broadcast(on_caller, NULL, released_on_caller), 0);
    assert_int_equal(atomic_load(&caller_runs), 102);
    atomic_long covered = 0;
    spool_for(0, 100000, NULL, count_range, &covered);
    assert_int_equal(atomic_load(&covered), 100000);
    spool_reducer_t r = {sizeof(long), sum_identity, sum_fold, sum_combine};
    long sum = -1;
    spool_reduce(0, 1000, NULL, &r, NULL, &sum);
    assert_int_equal(sum, 999 * 1000 / 2);
}

static void test_fallback_then_init(void **state)
{
    (void)state;
    atomic_int outside;
    atomic_init(&outside, 0);
    spool__test_fail_thread_create(1, EAGAIN); /* the global pool's first thread */
    int threads_before = test_os_threads();
    counted_fib_t t = {18, 0, &outside};
    counted_fib(&t);
    assert_int_equal(t.result, fib_expected(18));
    /* Every call ran on this thread. */
    assert_int_equal(atomic_load(&outside), 8361); /* calls of counted_fib(18) */
    assert_true(test_os_threads_at_most(threads_before) <= threads_before);
    assert_int_equal(spool_current_num_threads(), 1);
    loops_and_broadcasts_without_pool();
    assert_true(test_os_threads_at_most(threads_before) <= threads_before);

    /* The failure is not sticky for an explicit init. */
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_global_init(&config), 0);
    assert_int_equal(spool_current_num_threads(), 3); /* and the caller slot */
    atomic_store(&outside, 0);
    counted_fib_t u = {18, 0, &outside};
    counted_fib(&u);
    assert_int_equal(u.result, fib_expected(18));
    assert_int_equal(atomic_load(&outside), 1); /* only the root call */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fallback_then_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
