/* When the global pool cannot start, work still completes on the calling
 * thread; a later spool_global_init may still start it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "spool.h"
#include "test_hooks.h"
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
    assert_int_equal(test_os_threads(), threads_before);
    assert_int_equal(spool_current_num_threads(), 1);

    /* The failure is not sticky for an explicit init. */
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_global_init(&config), 0);
    assert_int_equal(spool_current_num_threads(), 2);
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
