/*
 * The caller slot: a thread outside any pool that runs a join, a loop, a
 * scope or a task group in the global pool works as its extra worker
 * (index num_threads) for the call.  main() makes the global pool one
 * worker wide, so that the caller makes two.
 *   SPOOL_TEST_CALLER_ROUNDS: rounds of the concurrent outside callers.
 *   SPOOL_TEST_SERVER_ROUNDS: detached broadcasts for the slot's server.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pool/caller.h"
#include "pool/global.h"
#include "test_util.h"

/* ---- the index, and a pool of one worker with the caller making two ---- */

static atomic_int met_in;

typedef struct half {
    int index;
    bool met;
} half_t;

static void meet_half(void *arg)
{
    half_t *h = arg;
    h->index = spool_current_thread_index();
    /* Both halves must run at once: the worker steals one. */
    h->met = test_meet(&met_in, 2, 10000);
}

static void test_caller_is_a_second_thread(void **state)
{
    (void)state;
    assert_int_equal(spool_current_num_threads(), 2); /* one worker and the slot */
    half_t a = {-2, false}, b = {-2, false};
    atomic_store(&met_in, 0);
    spool_join(meet_half, &a, meet_half, &b);
    assert_true(a.met);
    assert_true(b.met);
    assert_int_equal(a.index, 1); /* the first half ran on the caller, index 1 */
    assert_int_equal(b.index, 0); /* the second was stolen by the worker */
    assert_int_equal(spool_current_thread_index(), -1);
}

/* ---- nothing is lost: the call waits for what thieves hold -------------- */

static atomic_long counted;
static atomic_bool slow_done;

static void slow_half(void *arg)
{
    (void)arg;
    test_sleep_ms(50);
    atomic_store(&slow_done, true);
}

static void wait_a_little(void *arg)
{
    (void)arg;
    /* Gives the worker time to steal the other half. */
    for (int i = 0; i < 1000 && spool_current_thread_has_pending_tasks() == 1; i++)
        test_sleep_ms(1);
}

static void count_detached(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counted, 1);
}

static void spawn_detached(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        assert_int_equal(spool_spawn(count_detached, NULL), 0);
}

static void count_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    atomic_fetch_add(&counted, 1);
}

static void spawn_many(spool_scope_t *scope, void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(spool_scope_spawn(scope, count_job, NULL), 0);
}

static void test_nothing_lost(void **state)
{
    (void)state;
    /* A join whose second half a thief holds when the first returns. */
    for (int round = 0; round < 20; round++) {
        atomic_store(&slow_done, false);
        spool_join(wait_a_little, NULL, slow_half, NULL);
        assert_true(atomic_load(&slow_done));
    }
    /* A scope's spawns, all run when it returns. */
    atomic_store(&counted, 0);
    spool_scope(spawn_many, NULL);
    assert_int_equal(atomic_load(&counted), 1000);
    /* Detached spawns made on the caller: run by the time it returns (it
     * runs what is left on its deque before it goes) or by the worker. */
    atomic_store(&counted, 0);
    spool_join(spawn_detached, NULL, spawn_detached, NULL);
    for (int ms = 0; ms < 5000 && atomic_load(&counted) < 200; ms++)
        test_sleep_ms(1);
    assert_int_equal(atomic_load(&counted), 200);
}

/* ---- stats and the timeline --------------------------------------------- */

#if SPOOL_TRACING
static void fib_root(void *arg)
{
    fib_join(arg);
}
#endif

static void test_stats_and_timeline(void **state)
{
    (void)state;
    spool_pool_t *global = spool__global_pool();
    assert_non_null(global);
    spool_worker_stats_t st;
#ifdef SPOOL_STATS
    assert_int_equal(spool_pool_stats(global, 1, &st, sizeof st), 0); /* the caller's */
#else
    assert_int_equal(spool_pool_stats(global, 1, &st, sizeof st), ENOTSUP);
#endif
    assert_int_equal(spool_pool_stats(global, 2, &st, sizeof st), EINVAL);
#if SPOOL_TRACING
    assert_int_equal(spool_pool_trace_start(global, 1 << 12), 0);
    fib_task_t t = {18, 0};
    spool_join(fib_root, &t, fib_root, &(fib_task_t){17, 0});
    assert_int_equal(spool_pool_trace_stop(global), 0);
    static char buf[1 << 20];
    assert_true(test_trace_json(global, buf, sizeof buf));
    /* A row for the caller, with jobs on it. */
    assert_non_null(strstr(buf, "spool-caller"));
    assert_non_null(strstr(buf, "\"tid\":2,"));
#endif
}

/* ---- several outside callers at once: one holds the slot, the others hand off */

static double values[4096];

static void add_one(void *ctx, size_t b, size_t e)
{
    atomic_long *sum = ctx;
    long s = 0;
    for (size_t i = b; i < e; i++)
        s += (long)values[i] + 1;
    atomic_fetch_add(sum, s);
}

static void *outside_loops(void *arg)
{
    long rounds = *(long *)arg;
    for (long r = 0; r < rounds; r++) {
        atomic_long sum = 0;
        spool_for(0, 4096, NULL, add_one, &sum);
        if (atomic_load(&sum) != 4096)
            abort();
        if (r % 16 == 0) {
            spool_group_t g;
            spool_group_init(&g);
            for (int i = 0; i < 8; i++)
                spool_group_spawn(&g, count_job, NULL);
            spool_group_wait(&g);
        }
    }
    return NULL;
}

static void test_concurrent_outside_callers(void **state)
{
    (void)state;
    long rounds = (long)test_iters("SPOOL_TEST_CALLER_ROUNDS", 2000);
    pthread_t t[2];
    atomic_store(&counted, 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, outside_loops, &rounds), 0);
    outside_loops(&rounds);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&counted), 3 * ((rounds + 15) / 16) * 8);
}

/* ---- a task group opened outside holds the slot until its wait ---------- */

static void test_group_outside_takes_slot(void **state)
{
    (void)state;
    atomic_store(&counted, 0);
    spool_group_t g;
    spool_group_init(&g);
    assert_int_equal(spool_current_thread_index(), 1);
    for (int i = 0; i < 100; i++)
        assert_int_equal(spool_group_spawn(&g, count_job, NULL), 0);
    spool_group_wait(&g);
    assert_int_equal(spool_current_thread_index(), -1);
    assert_int_equal(atomic_load(&counted), 100);
}

/* ---- another pool from the slot, and a pool that does not lend it ------- */

static void note_index(void *arg)
{
    *(int *)arg = spool_current_thread_index();
}

static void install_other(void *arg)
{
    spool_pool_t *other = arg;
    int index = -2;
    assert_int_equal(spool_pool_install(other, note_index, &index), 0);
    assert_true(index >= 0 && index < 2); /* one of the other pool's workers */
}

static void test_install_from_the_slot(void **state)
{
    (void)state;
    spool_pool_t *other;
    spool_config_t c = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&c, &other), 0);
    spool_join(install_other, other, install_other, other);
    /* An explicit pool's install hands off: no caller slot there. */
    int index = -2;
    assert_int_equal(spool_pool_install(other, note_index, &index), 0);
    assert_true(index >= 0 && index < 2);
    assert_int_equal(spool_pool_num_threads(other), 2);
    assert_int_equal(spool_pool_destroy(other), 0);
}

static void own_stack_child(void)
{
    spool_config_t c = {.num_threads = 1, .stack_size = (size_t)4 << 20};
    if (spool_global_init(&c) != 0)
        _exit(1);
    if (spool_current_num_threads() != 1) /* no slot to count */
        _exit(2);
    int a = -2, b = -2;
    spool_join(note_index, &a, note_index, &b);
    if (a != 0 || b != 0) /* every root on the worker's own stack */
        _exit(3);
    _exit(0);
}

static void test_own_stacks_not_lent(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        own_stack_child();
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- destroy while an outside caller holds the slot: it waits ---------- */

typedef struct holder {
    spool_pool_t *pool;
    atomic_bool inside, done;
} holder_t;

static void hold_a_while(void *arg)
{
    holder_t *h = arg;
    atomic_store(&h->inside, true);
    test_sleep_ms(100);
    atomic_store(&h->done, true);
}

static void *hold_slot(void *arg)
{
    holder_t *h = arg;
    if (!spool__caller_run(h->pool, hold_a_while, h, (spool__context_t){NULL, 0}))
        abort();
    return NULL;
}

static void test_destroy_waits_for_the_holder(void **state)
{
    (void)state;
    /* A pool that lends its slot, as the global pool does (which no
     * caller can destroy). */
    holder_t h = {0};
    spool_config_t c = {.num_threads = 1};
    assert_int_equal(spool__pool_create(&c, true, &h.pool), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold_slot, &h), 0);
    for (int ms = 0; ms < 10000 && !atomic_load(&h.inside); ms++)
        test_sleep_ms(1);
    assert_true(atomic_load(&h.inside));
    assert_int_equal(spool_pool_destroy(h.pool), 0);
    assert_true(atomic_load(&h.done)); /* destroy returned after the holder left */
    pthread_join(t, NULL);
}

/* ---- the slot's server runs the free slot's index, never a worker ---- */

static pthread_t worker_thread, main_thread;
static atomic_uint server_runs, slot_on_worker, slot_on_main;

static void note_worker_thread(void *arg)
{
    worker_thread = pthread_self();
    /* Release: pairs with the test's acquire load, which reads worker_thread. */
    atomic_store_explicit((atomic_int *)arg, 1, memory_order_release);
}

static void note_slot_thread(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    if (index == n - 1) { /* the caller slot's */
        if (pthread_equal(pthread_self(), worker_thread))
            atomic_fetch_add(&slot_on_worker, 1);
        if (pthread_equal(pthread_self(), main_thread))
            atomic_fetch_add(&slot_on_main, 1);
    }
    /* Release: pairs with the test's acquire load before it reads the counts. */
    atomic_fetch_add_explicit(&server_runs, 1, memory_order_release);
}

static atomic_uint feeder_spawned, feeder_ran;
static atomic_bool feeder_stop;

static void feeder_job(void *arg)
{
    (void)arg;
    atomic_fetch_add_explicit(&feeder_ran, 1, memory_order_relaxed);
}

/* Keeps the worker taking: each take looks at its own broadcasts, then at
 * the slot's, while the broadcasts are queued. */
static void *feeder(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&feeder_stop, memory_order_relaxed)) {
        if (atomic_load(&feeder_spawned) - atomic_load(&feeder_ran) < 64) {
            assert_int_equal(spool_spawn(feeder_job, NULL), 0);
            atomic_fetch_add(&feeder_spawned, 1);
        } else {
            sched_yield();
        }
    }
    return NULL;
}

/* A detached broadcast from outside leaves the free slot's index to the
 * server: a worker that ran it would hold its own index's run of the same
 * broadcast behind it (caller.md, H6; a barrier of every run hangs). */
static void test_server_runs_the_slot(void **state)
{
    (void)state;
    pthread_t feed;
    assert_int_equal(pthread_create(&feed, NULL, feeder, NULL), 0);
    atomic_int noted = 0;
    assert_int_equal(spool_spawn(note_worker_thread, &noted), 0); /* one worker */
    while (atomic_load_explicit(&noted, memory_order_acquire) == 0) /* note_worker_thread's */
        sched_yield();
    main_thread = pthread_self();
    unsigned n = spool_current_num_threads();
    assert_int_equal(n, 2);
    unsigned rounds = (unsigned)test_iters("SPOOL_TEST_SERVER_ROUNDS", 3000);
    for (unsigned r = 0; r < rounds; r++)
        assert_int_equal(spool_spawn_broadcast(note_slot_thread, NULL, NULL), 0);
    while (atomic_load_explicit(&server_runs, memory_order_acquire) < rounds * n) /* the runs' */
        sched_yield();
    atomic_store(&feeder_stop, true);
    pthread_join(feed, NULL);
    while (atomic_load(&feeder_ran) < atomic_load(&feeder_spawned))
        sched_yield();
    assert_int_equal(atomic_load(&slot_on_worker), 0);
    assert_int_equal(atomic_load(&slot_on_main), 0);
}

int main(void)
{
    /* test_stats_and_timeline starts its own trace: the suite may run with
     * SPOOL_TRACE set for every other test. */
    unsetenv("SPOOL_TRACE");
    spool_config_t c = {.num_threads = 1};
    if (spool_global_init(&c) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caller_is_a_second_thread),
        cmocka_unit_test(test_nothing_lost),
        cmocka_unit_test(test_stats_and_timeline),
        cmocka_unit_test(test_concurrent_outside_callers),
        cmocka_unit_test(test_group_outside_takes_slot),
        cmocka_unit_test(test_install_from_the_slot),
        cmocka_unit_test(test_own_stacks_not_lent),
        cmocka_unit_test(test_destroy_waits_for_the_holder),
        cmocka_unit_test(test_server_runs_the_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
