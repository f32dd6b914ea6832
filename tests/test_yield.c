/* Yield: rayon-core's yield_now_to_spawn and yield_local_to_spawn, and on a
 * one-thread pool what each yield finds (own deque, own broadcasts, the
 * injector) and what it does not; the pending-task hint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "spool.h"
#include "test_util.h"

static atomic_int sent;

static void send_22(void *arg)
{
    (void)arg;
    atomic_store(&sent, 22);
}

/* arg: spool_yield_now or spool_yield_local, called once on a worker. */
typedef struct yield_fn {
    spool_yield_t (*yield)(void);
} yield_fn_t;

static void yield_once(void *arg)
{
    spool_yield_t y = ((yield_fn_t *)arg)->yield();
    assert_true(y == SPOOL_YIELD_EXECUTED || y == SPOOL_YIELD_IDLE);
}

static void wait_for_22(void)
{
    for (int i = 0; i < 10000 && atomic_load(&sent) != 22; i++)
        test_sleep_ms(1);
    assert_int_equal(atomic_load(&sent), 22);
}

/* rayon: queue a spawn, yield from a worker; the spawn must then run. */
static void test_yield_now_to_spawn(void **state)
{
    (void)state;
    atomic_store(&sent, 0);
    assert_int_equal(spool_spawn(send_22, NULL), 0);
    yield_fn_t now = {spool_yield_now};
    spool_join(yield_once, &now, yield_once, &now);
    wait_for_22();
}

static void test_yield_local_to_spawn(void **state)
{
    (void)state;
    atomic_store(&sent, 0);
    assert_int_equal(spool_spawn(send_22, NULL), 0);
    yield_fn_t local = {spool_yield_local};
    spool_join(yield_once, &local, yield_once, &local);
    wait_for_22();
}

static void test_outside(void **state)
{
    (void)state;
    assert_int_equal(spool_yield_now(), SPOOL_YIELD_OUTSIDE);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_OUTSIDE);
    assert_int_equal(spool_current_thread_has_pending_tasks(), -1);
}

static atomic_int ran;

static void mark(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void mark_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
    atomic_fetch_add(&ran, 100);
}

/* On a one-thread pool nobody else can take the jobs. */
static void local_jobs(void *arg)
{
    (void)arg;
    assert_int_equal(spool_current_thread_has_pending_tasks(), 0);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_IDLE);
    assert_int_equal(spool_yield_now(), SPOOL_YIELD_IDLE);
    assert_int_equal(spool_spawn(mark, NULL), 0);
    assert_int_equal(spool_current_thread_has_pending_tasks(), 1);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_EXECUTED);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(spool_current_thread_has_pending_tasks(), 0);
    /* A broadcast goes to this worker's broadcast queue, not its deque. */
    assert_int_equal(spool_spawn_broadcast(mark_broadcast, NULL, NULL), 0);
    assert_int_equal(spool_current_thread_has_pending_tasks(), 0);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_EXECUTED);
    assert_int_equal(atomic_load(&ran), 101);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_IDLE);
}

static void test_local_on_one_thread(void **state)
{
    (void)state;
    spool_config_t c = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&c, &pool), 0);
    atomic_store(&ran, 0);
    assert_int_equal(spool_pool_install(pool, local_jobs, NULL), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* Work queued from outside is in the injector: yield_now finds it,
 * yield_local does not. */
typedef struct injected {
    spool_pool_t *pool;
    atomic_int queued;
} injected_t;

static void *queue_from_outside(void *arg)
{
    injected_t *in = arg;
    if (spool_pool_spawn(in->pool, mark, NULL) != 0)
        abort();
    atomic_store(&in->queued, 1);
    return NULL;
}

static void yield_to_injected(void *arg)
{
    injected_t *in = arg;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, queue_from_outside, in), 0);
    pthread_join(t, NULL);
    assert_int_equal(spool_yield_local(), SPOOL_YIELD_IDLE);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(spool_yield_now(), SPOOL_YIELD_EXECUTED);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(spool_yield_now(), SPOOL_YIELD_IDLE);
}

static void test_yield_now_takes_injected(void **state)
{
    (void)state;
    spool_config_t c = {.num_threads = 1};
    injected_t in = {NULL, 0};
    assert_int_equal(spool_pool_create(&c, &in.pool), 0);
    atomic_store(&ran, 0);
    assert_int_equal(spool_pool_install(in.pool, yield_to_injected, &in), 0);
    assert_int_equal(spool_pool_destroy(in.pool), 0);
}

/* Inside spool_isolate a yield takes only what a wait there may take: not
 * a job queued before the region began (a spawn on this worker's deque,
 * one from outside in the pool's queue), which could take a lock that the
 * region's code holds; a job of the region, yes.  The worker notes what
 * each yield returned; the test thread checks. */
enum { Y_BEFORE_LOCAL, Y_BEFORE_NOW, Y_SCOPE_LOCAL, Y_SCOPE_NOW, Y_AFTER_SCOPE, Y_OUT_1, Y_OUT_2,
       Y_COUNT };
static spool_yield_t yields[Y_COUNT];
static int region_ran_at[Y_COUNT], outside_ran_at[Y_COUNT];
static atomic_int outside_ran;

static void mark_outside(void *arg)
{
    (void)arg;
    atomic_fetch_add(&outside_ran, 1);
}

static void region_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void note_yield(int k, spool_yield_t y)
{
    yields[k] = y;
    region_ran_at[k] = atomic_load(&ran);
    outside_ran_at[k] = atomic_load(&outside_ran);
}

static void yield_in_region_scope(spool_scope_t *scope, void *arg)
{
    (void)arg;
    /* The region's own spawns: a yield may run them. */
    if (spool_scope_spawn(scope, region_job, NULL) == 0)
        note_yield(Y_SCOPE_LOCAL, spool_yield_local());
    if (spool_scope_spawn(scope, region_job, NULL) == 0)
        note_yield(Y_SCOPE_NOW, spool_yield_now());
}

static void yield_in_region(void *arg)
{
    (void)arg;
    note_yield(Y_BEFORE_LOCAL, spool_yield_local());
    note_yield(Y_BEFORE_NOW, spool_yield_now());
    spool_scope(yield_in_region_scope, NULL);
    note_yield(Y_AFTER_SCOPE, spool_yield_now());
}

static void isolated_yields(void *arg)
{
    injected_t *in = arg;
    /* One job on this worker's deque, one in the pool's queue (it
     * increments ran), both made before the region. */
    if (spool_spawn(mark_outside, NULL) != 0)
        return;
    pthread_t t;
    if (pthread_create(&t, NULL, queue_from_outside, in) != 0)
        return;
    pthread_join(t, NULL);
    spool_isolate(yield_in_region, NULL);
    /* Out of the region again: both may run now. */
    note_yield(Y_OUT_1, spool_yield_now());
    note_yield(Y_OUT_2, spool_yield_now());
}

static void test_yield_in_isolation(void **state)
{
    (void)state;
    spool_config_t c = {.num_threads = 1};
    injected_t in = {NULL, 0};
    assert_int_equal(spool_pool_create(&c, &in.pool), 0);
    atomic_store(&ran, 0);
    atomic_store(&outside_ran, 0);
    memset(yields, 0, sizeof yields);
    assert_int_equal(spool_pool_install(in.pool, isolated_yields, &in), 0);
    assert_int_equal(spool_pool_destroy(in.pool), 0);
    /* Nothing made before the region ran inside it. */
    assert_int_equal(yields[Y_BEFORE_LOCAL], SPOOL_YIELD_IDLE);
    assert_int_equal(yields[Y_BEFORE_NOW], SPOOL_YIELD_IDLE);
    assert_int_equal(outside_ran_at[Y_BEFORE_NOW], 0);
    assert_int_equal(region_ran_at[Y_BEFORE_NOW], 0);
    /* The region's jobs did. */
    assert_int_equal(yields[Y_SCOPE_LOCAL], SPOOL_YIELD_EXECUTED);
    assert_int_equal(region_ran_at[Y_SCOPE_LOCAL], 1);
    assert_int_equal(yields[Y_SCOPE_NOW], SPOOL_YIELD_EXECUTED);
    assert_int_equal(region_ran_at[Y_SCOPE_NOW], 2);
    assert_int_equal(yields[Y_AFTER_SCOPE], SPOOL_YIELD_IDLE);
    assert_int_equal(outside_ran_at[Y_AFTER_SCOPE], 0);
    assert_int_equal(region_ran_at[Y_AFTER_SCOPE], 2);
    /* Out of the region, both outside jobs. */
    assert_int_equal(yields[Y_OUT_1], SPOOL_YIELD_EXECUTED);
    assert_int_equal(yields[Y_OUT_2], SPOOL_YIELD_EXECUTED);
    assert_int_equal(outside_ran_at[Y_OUT_2], 1);
    assert_int_equal(region_ran_at[Y_OUT_2], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yield_now_to_spawn),
        cmocka_unit_test(test_yield_local_to_spawn),
        cmocka_unit_test(test_outside),
        cmocka_unit_test(test_local_on_one_thread),
        cmocka_unit_test(test_yield_now_takes_injected),
        cmocka_unit_test(test_yield_in_isolation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
