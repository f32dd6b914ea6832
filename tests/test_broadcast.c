/* Broadcasts: rayon-core's broadcast tests (global, pool, self, mutual,
 * mutual with sleeping workers, sleep race, after spawn, after
 * spawn_broadcast, scope sums, nested, barrier), plus one order for
 * concurrent broadcasts, destroy waiting for spawn_broadcasts, ECANCELED,
 * and loops inside broadcasts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "spool.h"
#include "test_hooks.h"
#include "test_util.h"

enum { MAX_WORKERS = 64 };

static spool_pool_t *make_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    return pool;
}

/* Each run records its index; index must be the worker's own. */
typedef struct seen {
    atomic_uint runs[MAX_WORKERS];
    atomic_uint total, wrong_index, wrong_n;
    unsigned expect_n;
} seen_t;

static void record(void *ctx, unsigned index, unsigned n)
{
    seen_t *s = ctx;
    if ((int)index != spool_current_thread_index())
        atomic_fetch_add(&s->wrong_index, 1);
    if (n != s->expect_n)
        atomic_fetch_add(&s->wrong_n, 1);
    atomic_fetch_add(&s->runs[index], 1);
    atomic_fetch_add(&s->total, 1);
}

static void assert_each_once(seen_t *s, unsigned n)
{
    assert_int_equal(atomic_load(&s->wrong_index), 0);
    assert_int_equal(atomic_load(&s->wrong_n), 0);
    assert_int_equal(atomic_load(&s->total), n);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(atomic_load(&s->runs[i]), 1);
}

/* A release callback that the test can wait for. */
typedef struct done {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int count;
} done_t;

static done_t done = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void release_done(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&done.lock);
    done.count++;
    pthread_cond_broadcast(&done.cond);
    pthread_mutex_unlock(&done.lock);
}

static void wait_done(int count)
{
    pthread_mutex_lock(&done.lock);
    while (done.count < count)
        pthread_cond_wait(&done.cond, &done.lock);
    done.count -= count;
    pthread_mutex_unlock(&done.lock);
}

/* release runs after every run: check that it sees them all. */
static atomic_int release_saw_all;
static void release_check(void *ctx)
{
    seen_t *s = ctx;
    atomic_store(&release_saw_all, atomic_load(&s->total) == s->expect_n);
    release_done(ctx);
}

static void test_broadcast_global(void **state)
{
    (void)state;
    /* The global pool's workers: not the slot it lends to a caller. */
    seen_t s = {.expect_n = spool_current_num_threads() - 1};
    assert_int_equal(spool_broadcast(record, &s), 0);
    assert_each_once(&s, s.expect_n);
}

static void test_spawn_broadcast_global(void **state)
{
    (void)state;
    static seen_t s;
    memset(&s, 0, sizeof s);
    s.expect_n = spool_current_num_threads() - 1; /* the workers */
    assert_int_equal(spool_spawn_broadcast(record, &s, release_check), 0);
    wait_done(1);
    assert_true(atomic_load(&release_saw_all));
    assert_each_once(&s, s.expect_n);
}

static void test_broadcast_pool(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(7);
    seen_t s = {.expect_n = 7};
    assert_int_equal(spool_pool_broadcast(pool, record, &s), 0);
    assert_each_once(&s, 7);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_spawn_broadcast_pool(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(7);
    static seen_t s;
    memset(&s, 0, sizeof s);
    s.expect_n = 7;
    assert_int_equal(spool_pool_spawn_broadcast(pool, record, &s, release_check), 0);
    wait_done(1);
    assert_true(atomic_load(&release_saw_all));
    assert_each_once(&s, 7);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void broadcast_self(void *arg)
{
    assert_int_equal(spool_broadcast(record, arg), 0);
}

static void test_broadcast_self(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(7);
    seen_t s = {.expect_n = 7};
    assert_int_equal(spool_pool_install(pool, broadcast_self, &s), 0);
    assert_each_once(&s, 7);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void spawn_broadcast_self(void *arg)
{
    assert_int_equal(spool_spawn_broadcast(record, arg, release_done), 0);
}

static void test_spawn_broadcast_self(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(7);
    static seen_t s;
    memset(&s, 0, sizeof s);
    s.expect_n = 7;
    assert_int_equal(spool_pool_install(pool, spawn_broadcast_self, &s), 0);
    wait_done(1);
    assert_each_once(&s, 7);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- mutual: pool1 (3) broadcasts into pool2 (7), each run back ------- */

typedef struct mutual {
    spool_pool_t *pool1, *pool2;
    atomic_uint count;
    long nap_ms; /* sleeping first lets every worker fall asleep */
} mutual_t;

static void count_one(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    atomic_fetch_add(&((mutual_t *)ctx)->count, 1);
}

static void mutual_inner(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    mutual_t *m = ctx;
    if (m->nap_ms)
        test_sleep_ms(m->nap_ms);
    assert_int_equal(spool_pool_broadcast(m->pool1, count_one, m), 0);
}

static void mutual_outer(void *arg)
{
    mutual_t *m = arg;
    if (m->nap_ms)
        test_sleep_ms(m->nap_ms);
    assert_int_equal(spool_pool_broadcast(m->pool2, mutual_inner, m), 0);
}

static void run_mutual(long nap_ms)
{
    mutual_t m = {make_pool(3), make_pool(7), 0, nap_ms};
    if (nap_ms)
        test_sleep_ms(nap_ms);
    assert_int_equal(spool_pool_install(m.pool1, mutual_outer, &m), 0);
    assert_int_equal(atomic_load(&m.count), 3 * 7);
    assert_int_equal(spool_pool_destroy(m.pool1), 0);
    assert_int_equal(spool_pool_destroy(m.pool2), 0);
}

static void test_broadcast_mutual(void **state)
{
    (void)state;
    run_mutual(0);
}

static void test_broadcast_mutual_sleepy(void **state)
{
    (void)state;
    run_mutual(100);
}

static void spawn_mutual_inner(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    mutual_t *m = ctx;
    if (m->nap_ms)
        test_sleep_ms(m->nap_ms);
    assert_int_equal(spool_pool_spawn_broadcast(m->pool1, count_one, m, NULL), 0);
}

static void spawn_mutual_outer(void *arg)
{
    mutual_t *m = arg;
    if (m->nap_ms)
        test_sleep_ms(m->nap_ms);
    assert_int_equal(spool_pool_spawn_broadcast(m->pool2, spawn_mutual_inner, m, NULL), 0);
}

static void run_spawn_mutual(long nap_ms)
{
    mutual_t m = {make_pool(3), make_pool(7), 0, nap_ms};
    if (nap_ms)
        test_sleep_ms(nap_ms);
    assert_int_equal(spool_pool_install(m.pool1, spawn_mutual_outer, &m), 0);
    /* pool2's destroy waits for its broadcast, whose runs spawn into
     * pool1; pool1's destroy waits for those. */
    assert_int_equal(spool_pool_destroy(m.pool2), 0);
    assert_int_equal(spool_pool_destroy(m.pool1), 0);
    assert_int_equal(atomic_load(&m.count), 3 * 7);
}

static void test_spawn_broadcast_mutual(void **state)
{
    (void)state;
    run_spawn_mutual(0);
}

static void test_spawn_broadcast_mutual_sleepy(void **state)
{
    (void)state;
    run_spawn_mutual(100);
}

/* ---- sleep race: broadcasts while workers keep dozing off -------------- */

static void nap_index_us(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)n;
    struct timespec ts = {0, (long)index * 1000};
    nanosleep(&ts, NULL);
}

static void test_broadcast_sleep_race(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(7);
    long long ms = (long long)test_iters("SPOOL_TEST_SLEEP_RACE_MS", 1000);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long rounds = 0;
    do {
        assert_int_equal(spool_pool_broadcast(pool, nap_index_us, NULL), 0);
        rounds++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000LL + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
    assert_true(rounds > 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- order: after spawn, after spawn_broadcast -------------------------- */

static atomic_int spawned_ran;

static void set_spawned(void *arg)
{
    (void)arg;
    atomic_store(&spawned_ran, 22);
}

static void spawn_local(void *arg)
{
    (void)arg;
    assert_int_equal(spool_spawn(set_spawned, NULL), 0); /* on this worker's deque */
}

static void nothing(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
}

static void test_broadcast_after_spawn(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(4);
    for (int r = 0; r < 100; r++) {
        atomic_store(&spawned_ran, 0);
        assert_int_equal(spool_pool_install(pool, spawn_local, NULL), 0);
        /* A worker runs its broadcast only once its deque is empty, and a
         * thief of the spawn runs it before its broadcast part. */
        assert_int_equal(spool_pool_broadcast(pool, nothing, NULL), 0);
        assert_int_equal(atomic_load(&spawned_ran), 22);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_broadcast_after_spawn_broadcast(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(4);
    for (int r = 0; r < 100; r++) {
        seen_t s = {.expect_n = 4};
        assert_int_equal(spool_pool_spawn_broadcast(pool, record, &s, NULL), 0);
        /* This one is queued after it on every worker. */
        assert_int_equal(spool_pool_broadcast(pool, nothing, NULL), 0);
        assert_each_once(&s, 4);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- scopes --------------------------------------------------------------- */

static void add_index(spool_scope_t *s, void *ctx, unsigned index, unsigned n)
{
    (void)s;
    (void)n;
    atomic_fetch_add((atomic_uint *)ctx, index);
}

static void scope_sum_body(spool_scope_t *s, void *arg)
{
    assert_int_equal(spool_scope_spawn_broadcast(s, add_index, arg), 0);
}

static void nested_spawn(spool_scope_t *s, void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    assert_int_equal(spool_scope_spawn_broadcast(s, add_index, ctx), 0);
}

static void scope_nested_body(spool_scope_t *s, void *arg)
{
    assert_int_equal(spool_scope_spawn_broadcast(s, nested_spawn, arg), 0);
}

static void note_n(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    atomic_store((atomic_uint *)ctx, n);
}

static void scope_sums(void *arg)
{
    (void)arg;
    /* The workers a broadcast reaches, as it says (in the global pool,
     * spool_current_num_threads() counts the caller slot too). */
    atomic_uint workers = 0;
    assert_int_equal(spool_broadcast(note_n, &workers), 0);
    unsigned n = atomic_load(&workers);
    atomic_uint sum = 0;
    spool_scope(scope_sum_body, &sum);
    assert_int_equal(atomic_load(&sum), n * (n - 1) / 2);
    atomic_store(&sum, 0);
    spool_scope_fifo(scope_nested_body, &sum);
    assert_int_equal(atomic_load(&sum), n * n * (n - 1) / 2);
}

static void test_scope_spawn_broadcast(void **state)
{
    (void)state;
    scope_sums(NULL); /* global pool */
    static const unsigned sizes[] = {1, 2, 7};
    for (unsigned i = 0; i < 3; i++) {
        spool_pool_t *pool = make_pool(sizes[i]);
        assert_int_equal(spool_pool_install(pool, scope_sums, NULL), 0);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Every worker must run it at the same time: 7 workers + this thread. */
static pthread_barrier_t barrier;

static void barrier_run(spool_scope_t *s, void *ctx, unsigned index, unsigned n)
{
    (void)s;
    (void)ctx;
    (void)index;
    (void)n;
    pthread_barrier_wait(&barrier);
}

static void barrier_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    assert_int_equal(spool_scope_spawn_broadcast(s, barrier_run, NULL), 0);
    pthread_barrier_wait(&barrier);
}

/* rayon's scope_spawn_broadcast_barrier: an in-place scope on this thread
 * (outside any pool) spawns a broadcast into a 7-thread pool, the global
 * one here, configured before its first use; all 7 runs and the body must
 * be in the barrier at once. */
static void test_scope_spawn_broadcast_barrier(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 7};
    assert_int_equal(spool_global_init(&config), 0);
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 8), 0);
    for (int r = 0; r < 20; r++)
        spool_in_place_scope(barrier_body, NULL);
    pthread_barrier_destroy(&barrier);
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
    order.pool = make_pool(ORDER_WORKERS);
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
    destroying = make_pool(3);
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
    spool_pool_t *pool = make_pool(3);
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
    spool_pool_t *pool = make_pool(FULL_WORKERS);
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
        cmocka_unit_test(test_scope_spawn_broadcast_barrier), /* first: global_init */
        cmocka_unit_test(test_broadcast_global),
        cmocka_unit_test(test_spawn_broadcast_global),
        cmocka_unit_test(test_broadcast_pool),
        cmocka_unit_test(test_spawn_broadcast_pool),
        cmocka_unit_test(test_broadcast_self),
        cmocka_unit_test(test_spawn_broadcast_self),
        cmocka_unit_test(test_broadcast_mutual),
        cmocka_unit_test(test_broadcast_mutual_sleepy),
        cmocka_unit_test(test_spawn_broadcast_mutual),
        cmocka_unit_test(test_spawn_broadcast_mutual_sleepy),
        cmocka_unit_test(test_broadcast_sleep_race),
        cmocka_unit_test(test_broadcast_after_spawn),
        cmocka_unit_test(test_broadcast_after_spawn_broadcast),
        cmocka_unit_test(test_scope_spawn_broadcast),
        cmocka_unit_test(test_concurrent_broadcasts_one_order),
        cmocka_unit_test(test_destroy_waits_for_spawn_broadcasts),
        cmocka_unit_test(test_loops_and_broadcasts_nest),
        cmocka_unit_test(test_enomem_runs_nowhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
