/*
 * Worker placement (spool_config_t's places, SPOOL_PLACES): pinned workers
 * run where they were put (their affinity mask, and sched_getcpu inside a
 * broadcast); round robin past the list's end; bad strings give EINVAL;
 * the environment variable is read.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

enum { MAX_WORKERS = 64 };

typedef struct where {
    int cpu[MAX_WORKERS];      /* sched_getcpu() seen by worker i */
    int only_cpu[MAX_WORKERS]; /* the one CPU of its mask, -1 if several */
} where_t;

static void record(void *ctx, unsigned index, unsigned n)
{
    (void)n;
    where_t *w = ctx;
    w->cpu[index] = sched_getcpu();
    cpu_set_t set;
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
    w->only_cpu[index] = -1;
    if (CPU_COUNT(&set) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                w->only_cpu[index] = c;
}

/* The CPUs this thread may use, in order. */
static int allowed(int *cpus, int max)
{
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

/* A pool of `threads` workers with places; checks each worker against
 * expect[i % nexpect]. */
static void check_pinned(const char *places, unsigned threads, const int *expect, int nexpect)
{
    spool_config_t config = SPOOL_CONFIG_INIT;
    config.num_threads = threads;
    config.places = places;
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    where_t w;
    assert_int_equal(spool_pool_broadcast(pool, record, &w), 0);
    for (unsigned i = 0; i < threads; i++) {
        int want = expect[i % (unsigned)nexpect];
        int got;
        assert_int_equal(spool_pool_worker_cpu(pool, i, &got), 0);
        assert_int_equal(got, want);
        assert_int_equal(w.only_cpu[i], want);
        assert_int_equal(w.cpu[i], want);
    }
    int cpu;
    assert_int_equal(spool_pool_worker_cpu(pool, threads, &cpu), EINVAL);
    assert_int_equal(spool_pool_worker_cpu(pool, 0, NULL), EINVAL);
    assert_int_equal(spool_pool_worker_cpu(NULL, 0, &cpu), EINVAL);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_cores_and_lists(void **state)
{
    (void)state;
    int cpus[CPU_SETSIZE];
    int n = allowed(cpus, CPU_SETSIZE);
    assert_true(n >= 1);
    check_pinned("cores", (unsigned)n, cpus, n);
    check_pinned("cores", (unsigned)n + 1, cpus, n); /* round robin */
    char list[64];
    snprintf(list, sizeof list, "%d", cpus[n - 1]);
    int last[1] = {cpus[n - 1]};
    check_pinned(list, 3, last, 1); /* every worker on one CPU */
    if (n >= 2) {
        snprintf(list, sizeof list, "%d-%d,%d", cpus[0], cpus[0], cpus[1]);
        int two[2] = {cpus[0], cpus[1]};
        check_pinned(list, 4, two, 2);
    }
}

static void test_not_pinned_by_default(void **state)
{
    (void)state;
    unsetenv("SPOOL_PLACES");
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    int cpu = 0;
    assert_int_equal(spool_pool_worker_cpu(pool, 1, &cpu), 0);
    assert_int_equal(cpu, -1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_environment(void **state)
{
    (void)state;
    int cpus[CPU_SETSIZE];
    int n = allowed(cpus, CPU_SETSIZE);
    char list[32];
    snprintf(list, sizeof list, "%d", cpus[n - 1]);
    setenv("SPOOL_PLACES", list, 1);
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    int cpu;
    assert_int_equal(spool_pool_worker_cpu(pool, 1, &cpu), 0);
    assert_int_equal(cpu, cpus[n - 1]);
    assert_int_equal(spool_pool_destroy(pool), 0);
    setenv("SPOOL_PLACES", "nonsense", 1);
    assert_int_equal(spool_pool_create(&config, &pool), EINVAL);
    unsetenv("SPOOL_PLACES");
}

static void test_bad_strings(void **state)
{
    (void)state;
    const char *bad[] = {"", "abc", "1-", "-1", "3-1", "0,", ",0", "0;1", "0 1", "99999", "cores2",
                         "0-99999"};
    int cpus[CPU_SETSIZE];
    int n = allowed(cpus, CPU_SETSIZE);
    char outside[32];
    snprintf(outside, sizeof outside, "%d", CPU_SETSIZE - 1); /* not in a small VM's mask */
    for (size_t i = 0; i <= sizeof bad / sizeof *bad; i++) {
        spool_config_t config = SPOOL_CONFIG_INIT;
        config.num_threads = 1;
        config.places = i < sizeof bad / sizeof *bad ? bad[i] : outside;
        if (i == sizeof bad / sizeof *bad && cpus[n - 1] == CPU_SETSIZE - 1)
            continue; /* that CPU is allowed here after all */
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), EINVAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cores_and_lists),
        cmocka_unit_test(test_not_pinned_by_default),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_bad_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
