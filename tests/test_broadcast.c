/* Broadcasts: rayon-core's broadcast tests (global, pool, self, mutual,
 * mutual with sleeping workers, sleep race, after spawn, after
 * spawn_broadcast, scope sums, nested, barrier).  The queues behind them:
 * test_broadcast_queue.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"
#include "pool_idle.h"
#include "platform/test_hooks.h"
#include "test_util.h"

enum { MAX_WORKERS = 64 };

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

/* In the global pool the index space counts the caller slot it lends to
 * outside callers: a broadcast runs once for each index below
 * spool_current_num_threads() and passes that count, from outside (the
 * caller serves the slot's index), from a worker, and from the slot's
 * holder. */
static void test_broadcast_global(void **state)
{
    (void)state;
    seen_t s = {.expect_n = spool_current_num_threads()};
    assert_true(s.expect_n == 8); /* 7 workers (spool_global_init) and the slot */
    assert_int_equal(spool_broadcast(record, &s), 0);
    assert_each_once(&s, s.expect_n);
}

static void broadcast_from_job(void *arg)
{
    seen_t *s = arg;
    assert_int_equal(spool_broadcast(record, s), 0);
}

static void test_broadcast_global_from_worker_and_slot(void **state)
{
    (void)state;
    for (int r = 0; r < 20; r++) {
        /* a on the caller (the slot's holder), b maybe on a worker. */
        seen_t a = {.expect_n = spool_current_num_threads()};
        seen_t b = {.expect_n = spool_current_num_threads()};
        spool_join(broadcast_from_job, &a, broadcast_from_job, &b);
        assert_each_once(&a, a.expect_n);
        assert_each_once(&b, b.expect_n);
    }
}

static void test_spawn_broadcast_global(void **state)
{
    (void)state;
    static seen_t s;
    for (int r = 0; r < 20; r++) {
        memset(&s, 0, sizeof s);
        s.expect_n = spool_current_num_threads();
        assert_int_equal(spool_spawn_broadcast(record, &s, release_check), 0);
        wait_done(1);
        assert_true(atomic_load(&release_saw_all));
        assert_each_once(&s, s.expect_n);
    }
}

/* Per-thread state, the way OpenMP and rayon programs keep it: an array of
 * spool_current_num_threads() entries, set up by a broadcast, then read at
 * spool_current_thread_index() by a loop's parts.  Every part must find
 * its entry set up (the caller slot's index included). */
typedef struct per_thread {
    unsigned n;
    atomic_int *ready;
    atomic_int unset_reads, out_of_range;
} per_thread_t;

static void set_up_entry(void *ctx, unsigned index, unsigned n)
{
    per_thread_t *p = ctx;
    if (n != p->n || index >= p->n) {
        atomic_fetch_add(&p->out_of_range, 1);
        return;
    }
    atomic_store(&p->ready[index], 1);
}

static void read_entry(void *ctx, size_t begin, size_t end)
{
    per_thread_t *p = ctx;
    (void)begin;
    (void)end;
    int i = spool_current_thread_index();
    if (i < 0 || (unsigned)i >= p->n) {
        atomic_fetch_add(&p->out_of_range, 1);
        return;
    }
    if (!atomic_load(&p->ready[i]))
        atomic_fetch_add(&p->unset_reads, 1);
    for (volatile int k = 0; k < 200; k++)
        ;
}

static void test_broadcast_sets_up_every_index(void **state)
{
    (void)state;
    per_thread_t p = {.n = spool_current_num_threads()};
    p.ready = calloc(p.n, sizeof *p.ready);
    assert_non_null(p.ready);
    assert_int_equal(spool_broadcast(set_up_entry, &p), 0);
    for (int r = 0; r < 50; r++) {
        spool_for_opts_t o = {.min_len = 1};
        spool_for(0, 4096, &o, read_entry, &p);
    }
    assert_int_equal(atomic_load(&p.out_of_range), 0);
    assert_int_equal(atomic_load(&p.unset_reads), 0);
    free(p.ready);
}

/* A broadcast to a pool whose workers all sleep wakes every one of them:
 * every index runs once, every time (sleep.md, "Broadcast"). */
static void test_broadcast_wakes_sleeping_pool(void **state)
{
    (void)state;
    enum { THREADS = 9 };
    spool_pool_t *pool = test_pool(THREADS);
    unsigned long rounds = test_iters("SPOOL_TEST_BROADCAST_ASLEEP", 20);
    for (unsigned long r = 0; r < rounds; r++) {
        assert_true(test_wait_pool_asleep(pool, 5000));
        seen_t s = {.expect_n = THREADS};
        assert_int_equal(spool_pool_broadcast(pool, record, &s), 0);
        assert_each_once(&s, THREADS);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_broadcast_pool(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(7);
    seen_t s = {.expect_n = 7};
    assert_int_equal(spool_pool_broadcast(pool, record, &s), 0);
    assert_each_once(&s, 7);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_spawn_broadcast_pool(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(7);
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
    spool_pool_t *pool = test_pool(7);
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
    spool_pool_t *pool = test_pool(7);
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
    mutual_t m = {test_pool(3), test_pool(7), 0, nap_ms};
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
    mutual_t m = {test_pool(3), test_pool(7), 0, nap_ms};
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
    spool_pool_t *pool = test_pool(7);
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
    spool_pool_t *pool = test_pool(4);
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
    spool_pool_t *pool = test_pool(4);
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
    /* The count a broadcast passes is spool_current_num_threads(), the
     * global pool's caller slot included. */
    atomic_uint workers = 0;
    assert_int_equal(spool_broadcast(note_n, &workers), 0);
    unsigned n = atomic_load(&workers);
    assert_int_equal(n, spool_current_num_threads());
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
        spool_pool_t *pool = test_pool(sizes[i]);
        assert_int_equal(spool_pool_install(pool, scope_sums, NULL), 0);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Broadcasts whose runs wait for each other (spool_broadcast.h): every
 * index's run, the caller slot's included, can start while the others
 * wait, so a barrier of all the runs (and of the outside thread that
 * spawned them) fills.  A hang is the failure: a watchdog ends the test
 * with a line naming the case. */
static pthread_barrier_t barrier;
static const char *watched;

static void watchdog_fired(int sig)
{
    (void)sig;
    static const char msg[] = "test_broadcast: a broadcast barrier hung: ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, watched, strlen(watched));
    (void)!write(2, "\n", 1);
    _exit(3);
}

static void watch(const char *what)
{
    watched = what;
    signal(SIGALRM, watchdog_fired);
    alarm(60);
}

static void unwatch(void)
{
    alarm(0);
}

static void record_then_meet(void *ctx, unsigned index, unsigned n)
{
    record(ctx, index, n);
    pthread_barrier_wait(&barrier);
}

static void barrier_run(spool_scope_t *s, void *ctx, unsigned index, unsigned n)
{
    (void)s;
    (void)index;
    (void)n;
    atomic_fetch_add((atomic_uint *)ctx, 1);
    pthread_barrier_wait(&barrier);
}

static void barrier_body(spool_scope_t *s, void *arg)
{
    assert_int_equal(spool_scope_spawn_broadcast(s, barrier_run, arg), 0);
    pthread_barrier_wait(&barrier);
}

/* rayon's scope_spawn_broadcast_barrier: an in-place scope on this thread
 * (outside any pool) spawns a broadcast into the global pool, configured
 * with 7 workers before its first use; the runs of every index (the 7
 * workers' and the caller slot's) and the body meet at one barrier of
 * spool_current_num_threads() + 1. */
static void test_scope_spawn_broadcast_barrier(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 7};
    assert_int_equal(spool_global_init(&config), 0);
    unsigned n = spool_current_num_threads();
    assert_int_equal(n, 8);
    assert_int_equal(pthread_barrier_init(&barrier, NULL, n + 1), 0);
    watch("an in-place scope from outside");
    for (int r = 0; r < 20; r++) {
        atomic_uint runs = 0;
        spool_in_place_scope(barrier_body, &runs);
        assert_int_equal(atomic_load(&runs), n);
    }
    /* A detached broadcast, the outside thread at the barrier too. */
    watch("a detached broadcast from outside");
    for (int r = 0; r < 20; r++) {
        static seen_t s;
        memset(&s, 0, sizeof s);
        s.expect_n = n;
        assert_int_equal(spool_spawn_broadcast(record_then_meet, &s, release_check), 0);
        pthread_barrier_wait(&barrier);
        wait_done(1);
        assert_each_once(&s, n);
    }
    unwatch();
    pthread_barrier_destroy(&barrier);
}

/* From a thread of the pool, the runs alone meet (n parties): the
 * spawner's own index runs at its scope's end.  From the slot's holder
 * (a scope from outside runs its body there) and from a worker. */
static void barrier_runs_only(spool_scope_t *s, void *arg)
{
    assert_int_equal(spool_scope_spawn_broadcast(s, barrier_run, arg), 0);
}

/* Sets *arg to 1 if every index ran once, else 2 (on any thread: the
 * test thread asserts). */
static void meet_in_scope(void *arg)
{
    atomic_uint runs = 0;
    spool_in_place_scope(barrier_runs_only, &runs);
    atomic_store((atomic_uint *)arg, atomic_load(&runs) == spool_current_num_threads() ? 1 : 2);
}

static void meet_on_worker(void *arg)
{
    if (spool_current_thread_index() + 1 >= (int)spool_current_num_threads())
        atomic_store((atomic_uint *)arg, 3); /* not on a worker */
    else
        meet_in_scope(arg);
}

static void no_op(void *arg)
{
    (void)arg;
}

static void test_broadcast_barrier_from_pool_threads(void **state)
{
    (void)state;
    unsigned n = spool_current_num_threads();
    assert_int_equal(pthread_barrier_init(&barrier, NULL, n), 0);
    watch("a scope on the caller slot's holder");
    for (int r = 0; r < 20; r++) {
        atomic_uint met = 0;
        spool_join(meet_in_scope, &met, no_op, NULL); /* on the slot, from here */
        assert_int_equal(atomic_load(&met), 1);
    }
    watch("a scope on a worker");
    for (int r = 0; r < 20; r++) {
        static atomic_uint met;
        atomic_store(&met, 0);
        assert_int_equal(spool_spawn(meet_on_worker, (void *)&met), 0);
        while (atomic_load(&met) == 0)
            sched_yield();
        assert_int_equal(atomic_load(&met), 1);
    }
    unwatch();
    pthread_barrier_destroy(&barrier);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scope_spawn_broadcast_barrier), /* first: global_init */
        cmocka_unit_test(test_broadcast_global),
        cmocka_unit_test(test_spawn_broadcast_global),
        cmocka_unit_test(test_broadcast_global_from_worker_and_slot),
        cmocka_unit_test(test_broadcast_sets_up_every_index),
        cmocka_unit_test(test_broadcast_pool),
        cmocka_unit_test(test_spawn_broadcast_pool),
        cmocka_unit_test(test_broadcast_self),
        cmocka_unit_test(test_spawn_broadcast_self),
        cmocka_unit_test(test_broadcast_mutual),
        cmocka_unit_test(test_broadcast_mutual_sleepy),
        cmocka_unit_test(test_spawn_broadcast_mutual),
        cmocka_unit_test(test_spawn_broadcast_mutual_sleepy),
        cmocka_unit_test(test_broadcast_sleep_race),
        cmocka_unit_test(test_broadcast_wakes_sleeping_pool),
        cmocka_unit_test(test_broadcast_after_spawn),
        cmocka_unit_test(test_broadcast_after_spawn_broadcast),
        cmocka_unit_test(test_scope_spawn_broadcast),
        cmocka_unit_test(test_broadcast_barrier_from_pool_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
