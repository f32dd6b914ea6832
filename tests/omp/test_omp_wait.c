/* libspool-omp's waits sleep (omp.md, "Waits"): each blocking wait spins
 * for a bounded time and then sleeps until what it waits for happens.  In
 * each case one thread is held up for HOLD_MS (it sleeps: in a task, in an
 * ordered chunk, holding a lock, before a barrier) while another waits for
 * it; the process's CPU time over the case stays under 5% of its wall time.
 * Run with OMP_NUM_THREADS=2: a pool of one worker, so a team of two is the
 * encountering thread and that worker. */
#include <time.h>

#include "omp_test.h"

enum { HOLD_MS = 500 };

/* The process's CPU time and the wall clock, in seconds. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct clocks {
    double cpu, wall;
} clocks_t;

static clocks_t start(void)
{
    return (clocks_t){cpu_now(), omp_get_wtime()};
}

/* Fails unless the CPU time since c is under 5% of the wall time, which is
 * at least the hold. */
static void check(const char *what, clocks_t c)
{
    double cpu = cpu_now() - c.cpu, wall = omp_get_wtime() - c.wall;
    fprintf(stderr, "%s: %.1f ms of CPU in %.1f ms\n", what, cpu * 1e3, wall * 1e3);
    assert_true(wall >= HOLD_MS * 1e-3 * 0.9);
    assert_true(cpu < 0.05 * wall);
}

/* Set by a task once it runs, so that its maker waits for it elsewhere. */
static atomic_int started;

static void hold(void)
{
    atomic_store(&started, 1);
    test_sleep_ms(HOLD_MS);
}

/* The maker sleeps until the task started on the other thread (it must
 * not take the task itself in its wait). */
static void until_started(void)
{
    while (!atomic_load(&started))
        test_sleep_ms(1);
}

static void test_taskwait(void **state)
{
    (void)state;
    atomic_store(&started, 0);
    clocks_t c = start();
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task
        hold();
        until_started();
#pragma omp taskwait
    }
    check("taskwait", c);
}

static void test_taskgroup(void **state)
{
    (void)state;
    atomic_store(&started, 0);
    clocks_t c = start();
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskgroup
    {
#pragma omp task
        hold();
        until_started();
    }
    check("taskgroup", c);
}

/* A barrier waits for the team's tasks: thread 0 arrives while thread 1
 * runs one; then the region's end does the same. */
static void test_barrier_and_end(void **state)
{
    (void)state;
    atomic_store(&started, 0);
    clocks_t c = start();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp task
            hold();
            until_started();
        }
#pragma omp barrier
    }
    check("barrier (a task)", c);
    c = start();
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        test_sleep_ms(HOLD_MS);
    check("region's end", c);
    c = start();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            test_sleep_ms(HOLD_MS);
#pragma omp barrier
    }
    check("barrier", c);
}

static void test_depend(void **state)
{
    (void)state;
    atomic_store(&started, 0);
    int x = 0;
    clocks_t c = start();
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
        {
            hold();
            x = 1;
        }
        until_started();
        /* Undeferred: its maker waits in place for the dependence. */
#pragma omp task depend(in : x) if (0) shared(x)
        x++;
    }
    assert_int_equal(x, 2);
    check("task dependence", c);
}

static void test_ordered_doacross(void **state)
{
    (void)state;
    clocks_t c = start();
#pragma omp parallel for ordered schedule(static, 1) num_threads(2)
    for (int i = 0; i < 2; i++) {
        if (i == 0)
            test_sleep_ms(HOLD_MS);
#pragma omp ordered
        {
        }
    }
    check("ordered", c);
    c = start();
#pragma omp parallel for ordered(1) schedule(static, 1) num_threads(2)
    for (int i = 0; i < 2; i++) {
#pragma omp ordered depend(sink : i - 1)
        if (i == 0)
            test_sleep_ms(HOLD_MS);
#pragma omp ordered depend(source)
    }
    check("doacross", c);
}

static void test_critical_and_lock(void **state)
{
    (void)state;
    clocks_t c = start();
    atomic_int in = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            while (!atomic_load(&in))
                test_sleep_ms(1);
#pragma omp critical
        {
            atomic_store(&in, 1);
            if (omp_get_thread_num() == 0)
                test_sleep_ms(HOLD_MS);
        }
    }
    check("critical", c);
}

/* An undeferred detached task outside any region: its maker waits for the
 * event, which another thread fulfils. */
static void *fulfil_later(void *arg)
{
    test_sleep_ms(HOLD_MS);
    omp_fulfill_event(*(omp_event_handle_t *)arg);
    return NULL;
}

static void test_event_outside(void **state)
{
    (void)state;
    omp_event_handle_t ev;
    /* Shared with the task's body, whose ev and firstprivate locals are
     * its own. */
    static omp_event_handle_t handed;
    static pthread_t t;
    clocks_t c = start();
#pragma omp task detach(ev) if (0)
    {
        handed = ev;
        assert_int_equal(pthread_create(&t, NULL, fulfil_later, &handed), 0);
    }
    check("a detached task's event", c);
    pthread_join(t, NULL);
}

/* Between regions, reserve threads (a team larger than the pool) and the
 * pool's worker sleep. */
static void test_idle_between_regions(void **state)
{
    (void)state;
    atomic_int n = 0;
#pragma omp parallel num_threads(4)
    atomic_fetch_add(&n, 1);
    assert_int_equal(atomic_load(&n), 4);
    clocks_t c = start();
    test_sleep_ms(HOLD_MS);
    check("idle between regions", c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taskwait),         cmocka_unit_test(test_taskgroup),
        cmocka_unit_test(test_barrier_and_end),  cmocka_unit_test(test_depend),
        cmocka_unit_test(test_ordered_doacross), cmocka_unit_test(test_critical_and_lock),
        cmocka_unit_test(test_event_outside),    cmocka_unit_test(test_idle_between_regions),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
