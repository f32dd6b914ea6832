/* The broadcast queues: concurrent broadcasts reach every worker in one
 * order, destroy waits for spawn_broadcasts and refuses new ones
 * (ECANCELED), loops inside broadcasts and broadcasts inside loops, and a
 * queue that cannot grow (ENOMEM: the broadcast runs nowhere). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "spool.h"
#include "platform/test_hooks.h"
#include "test_util.h"

static void nothing(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
}

/* ---- concurrent broadcasts reach every worker in one order -------------- */

enum { ORDER_THREADS = 4, ORDER_WORKERS = 3 };

typedef struct order_log {
    unsigned ids[ORDER_WORKERS][ORDER_THREADS * 1000]; /* row i: written by worker i only */
    atomic_uint len[ORDER_WORKERS];
    spool_pool_t *pool;
    unsigned per_thread;
} order_log_t;

static order_log_t order;

static void log_id(void *ctx, unsigned index, unsigned n)
{
    (void)n;
    unsigned at = atomic_load_explicit(&order.len[index], memory_order_relaxed);
    order.ids[index][at] = (unsigned)(uintptr_t)ctx;
    atomic_store_explicit(&order.len[index], at + 1, memory_order_relaxed);
}

static void *order_submitter(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    for (unsigned k = 0; k < order.per_thread; k++) {
        uintptr_t id = t * order.per_thread + k;
        int err = k % 2 ? spool_pool_spawn_broadcast(order.pool, log_id, (void *)id, NULL)
                        : spool_pool_broadcast(order.pool, log_id, (void *)id);
        if (err != 0)
            abort();
    }
    return NULL;
}

static void test_concurrent_broadcasts_one_order(void **state)
{
    (void)state;
    memset(&order, 0, sizeof order);
    order.pool = test_pool(ORDER_WORKERS);
    order.per_thread = (unsigned)test_iters("SPOOL_TEST_ORDER_BROADCASTS", 1000);
    if (order.per_thread > 1000)
        order.per_thread = 1000;
    pthread_t threads[ORDER_THREADS];
    for (unsigned t = 0; t < ORDER_THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, order_submitter, (void *)(uintptr_t)t), 0);
    for (unsigned t = 0; t < ORDER_THREADS; t++)
        pthread_join(threads[t], NULL);
    assert_int_equal(spool_pool_destroy(order.pool), 0); /* waits for the detached ones */
    unsigned total = ORDER_THREADS * order.per_thread;
    for (unsigned w = 0; w < ORDER_WORKERS; w++) {
        assert_int_equal(atomic_load(&order.len[w]), total);
        assert_memory_equal(order.ids[w], order.ids[0], total * sizeof order.ids[0][0]);
    }
}

/* ---- destroy waits for spawn_broadcasts; ECANCELED after it began ------- */

static atomic_uint slow_runs;

static void slow_run(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
    test_sleep_ms(20);
    atomic_fetch_add(&slow_runs, 1);
}

static atomic_int released;
static void count_release(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&released, 1);
}

static spool_pool_t *destroying;
static atomic_bool release_destroy;

static void *destroy_it(void *arg)
{
    (void)arg;
    if (spool_pool_destroy(destroying) != 0)
        abort();
    return NULL;
}

/* Holds destroy back until the test has made its calls on the pool. */
static void blocker(void *arg)
{
    (void)arg;
    while (!atomic_load(&release_destroy))
        test_sleep_ms(1);
}

static void test_destroy_waits_for_spawn_broadcasts(void **state)
{
    (void)state;
    atomic_store(&slow_runs, 0);
    atomic_store(&released, 0);
    atomic_store(&release_destroy, false);
    destroying = test_pool(3);
    for (int k = 0; k < 5; k++)
        assert_int_equal(spool_pool_spawn_broadcast(destroying, slow_run, NULL, count_release), 0);
    assert_int_equal(spool_pool_spawn(destroying, blocker, NULL), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, destroy_it, NULL), 0);
    /* Once destroy has begun, outside broadcasts are refused. */
    int err = 0;
    for (int i = 0; i < 10000 && err == 0; i++) {
        err = spool_pool_spawn_broadcast(destroying, slow_run, NULL, count_release);
        if (err == 0)
            test_sleep_ms(1);
    }
    assert_int_equal(err, ECANCELED);
    assert_int_equal(spool_pool_broadcast(destroying, slow_run, NULL), ECANCELED);
    atomic_store(&release_destroy, true);
    pthread_join(t, NULL);
    /* Every accepted broadcast ran on all 3 workers, then released once. */
    unsigned runs = atomic_load(&slow_runs);
    assert_int_equal(runs % 3, 0);
    assert_int_equal((unsigned)atomic_load(&released), runs / 3);
    assert_true(runs >= 15);
}

/* ---- loops inside broadcasts, broadcasts inside loops --------------------- */

static void add_range(void *ctx, size_t begin, size_t end)
{
    atomic_fetch_add((atomic_size_t *)ctx, end - begin);
}

static void loop_in_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    spool_for(0, 10000, NULL, add_range, ctx);
}

static void broadcast_in_loop(void *ctx, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        if (spool_broadcast(loop_in_broadcast, ctx) != 0)
            abort();
}

static void loops_and_broadcasts(void *arg)
{
    spool_for(0, 8, NULL, broadcast_in_loop, arg);
}

static void test_loops_and_broadcasts_nest(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(3);
    atomic_size_t total = 0;
    assert_int_equal(spool_pool_install(pool, loops_and_broadcasts, &total), 0);
    assert_int_equal(atomic_load(&total), 8 * 3 * 10000);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- ENOMEM: a queue that cannot grow; the broadcast runs nowhere ------ */

enum { FULL = 256, FULL_WORKERS = 2 }; /* a broadcast queue's first size */

static atomic_bool blocker_running, release_blocker;
static atomic_uint full_runs[FULL + 1][FULL_WORKERS];

/* Worker 1 stays in it, so that its queue fills; worker 0 goes on. */
static void block_worker_1(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)n;
    if (index != 1)
        return;
    atomic_store(&blocker_running, true);
    while (!atomic_load(&release_blocker))
        test_sleep_ms(1);
}

static void count_id(void *ctx, unsigned index, unsigned n)
{
    (void)n;
    atomic_fetch_add(&full_runs[(uintptr_t)ctx][index], 1);
}

static void test_enomem_runs_nowhere(void **state)
{
    (void)state;
    memset(full_runs, 0, sizeof full_runs);
    atomic_store(&blocker_running, false);
    atomic_store(&release_blocker, false);
    spool_pool_t *pool = test_pool(FULL_WORKERS);
    assert_int_equal(spool_pool_spawn_broadcast(pool, block_worker_1, NULL, NULL), 0);
    while (!atomic_load(&blocker_running))
        test_sleep_ms(1);
    /* Worker 1's queue fills up; worker 0 runs its parts as they come. */
    for (uintptr_t id = 0; id < FULL; id++)
        assert_int_equal(spool_pool_spawn_broadcast(pool, count_id, (void *)id, NULL), 0);
    for (int ms = 0; ms < 10000 && atomic_load(&full_runs[FULL - 1][0]) == 0; ms++)
        test_sleep_ms(1); /* worker 0 has emptied its queue (FIFO: the last one ran) */
    assert_int_equal(atomic_load(&full_runs[FULL - 1][0]), 1);
    /* The next broadcast needs worker 1's queue to grow, and it cannot:
     * not even worker 0, whose queue has room, may run it. */
    spool__test_fail_deque_grow(1);
    assert_int_equal(spool_pool_spawn_broadcast(pool, count_id, (void *)(uintptr_t)FULL, NULL),
                     ENOMEM);
    spool__test_fail_deque_grow(0);
    atomic_store(&release_blocker, true);
    /* Each worker runs this one after everything queued before it. */
    assert_int_equal(spool_pool_broadcast(pool, nothing, NULL), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
    for (unsigned id = 0; id <= FULL; id++)
        for (unsigned w = 0; w < FULL_WORKERS; w++)
            assert_int_equal(atomic_load(&full_runs[id][w]), id < FULL ? 1 : 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_broadcasts_one_order),
        cmocka_unit_test(test_destroy_waits_for_spawn_broadcasts),
        cmocka_unit_test(test_loops_and_broadcasts_nest),
        cmocka_unit_test(test_enomem_runs_nowhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
