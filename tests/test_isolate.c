/*
 * Work isolation (spool_isolate): the deadlock of rayon issue 592 (a job
 * that holds a lock waits in a nested loop and its worker starts another
 * job that takes the same lock), reproduced without isolation and gone
 * with it; thread-local state kept across a nested loop; at most one outer
 * job on a worker's stack; isolation nested, across pools, with scopes,
 * FIFO scopes, broadcasts and loops; the isolated waiter helps; a region
 * that waits for its tasks, for a round trip through another pool, or for
 * its broadcast while another region broadcasts, finishes on any pool;
 * nothing lost.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "job/context.h"
#include "test_util.h"

/* ---- outer jobs that lock one mutex and run a nested loop ----------------- */

typedef struct outer_set {
    pthread_mutex_t lock; /* error-checking: a re-entry is EDEADLK, not a hang */
    atomic_int holder;    /* the worker holding lock + 1, 0 if none */
    bool isolate;
    spool_pool_t *pool;
    atomic_long reentries, done, parts, requeued;
    unsigned spin_ns;
} outer_set_t;

static _Thread_local int outer_depth; /* outer jobs on this thread's stack */
static _Thread_local long thread_value;
static atomic_int deepest;
static atomic_long tls_broken;

static void part(void *ctx, size_t b, size_t e)
{
    outer_set_t *set = ctx;
    for (size_t i = b; i < e; i++) {
        test_busy_ns(set->spin_ns);
        atomic_fetch_add(&set->parts, 1);
    }
}

typedef struct outer_job {
    outer_set_t *set;
    long id;
} outer_job_t;

static void nested_loop(void *arg)
{
    outer_job_t *o = arg;
    spool_for_opts_t one = {.max_len = 1};
    spool_for(0, 16, &one, part, o->set);
}

static void outer(void *arg)
{
    outer_job_t *o = arg;
    outer_set_t *set = o->set;
    /* Held by another worker: blocking would deadlock for real (this
     * worker may hold a part that one waits for), so queue again.  Held by
     * this worker: a re-entry, which the mutex reports as EDEADLK. */
    int me = spool_current_thread_index() + 1, holder = atomic_load(&set->holder);
    if (holder != 0 && holder != me) {
        atomic_fetch_add(&set->requeued, 1);
        assert_int_equal(spool_pool_spawn(set->pool, outer, o), 0);
        return;
    }
    test_raise_to(&deepest, ++outer_depth);
    thread_value = o->id;
    int err = pthread_mutex_lock(&set->lock);
    if (err == EDEADLK)
        atomic_fetch_add(&set->reentries, 1);
    else
        atomic_store(&set->holder, me);
    if (set->isolate)
        spool_isolate(nested_loop, o);
    else
        nested_loop(o);
    if (thread_value != o->id)
        atomic_fetch_add(&tls_broken, 1);
    if (err == 0) {
        atomic_store(&set->holder, 0);
        pthread_mutex_unlock(&set->lock);
    }
    outer_depth--;
    atomic_fetch_add(&set->done, 1);
    free(o);
}

/* rounds x per_round outer jobs queued from outside; returns re-entries. */
static long run_outer(spool_pool_t *pool, bool isolate, unsigned long rounds, unsigned per_round,
                      unsigned spin_ns)
{
    outer_set_t set = {.isolate = isolate, .spin_ns = spin_ns, .pool = pool};
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    assert_int_equal(pthread_mutex_init(&set.lock, &attr), 0);
    pthread_mutexattr_destroy(&attr);
    long expect = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        for (unsigned k = 0; k < per_round; k++) {
            outer_job_t *o = malloc(sizeof *o);
            assert_non_null(o);
            *o = (outer_job_t){&set, (long)(r * per_round + k + 1)};
            assert_int_equal(spool_pool_spawn(pool, outer, o), 0);
        }
        expect += per_round;
        while (atomic_load(&set.done) < expect)
            test_sleep_ms(1);
    }
    assert_int_equal(atomic_load(&set.parts), expect * 16);
    pthread_mutex_destroy(&set.lock);
    return atomic_load(&set.reentries);
}

static void test_reentry_without_isolation(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    atomic_store(&deepest, 0);
    long reentries = 0;
    for (int attempt = 0; attempt < 20 && reentries == 0; attempt++)
        reentries += run_outer(pool, false, 20, 4, 200000);
    print_message("without isolation: %ld re-entries, %d outer jobs deep at most\n", reentries,
                  atomic_load(&deepest));
    /* Memcheck runs one thread at a time: a worker never waits while
     * another runs the nested loop's part, so the re-entry this shows is
     * asserted in the other builds only (run_outer still checks that every
     * job ran). */
#if !defined(SPOOL_MEMCHECK)
    assert_true(reentries > 0);
    assert_true(atomic_load(&deepest) > 1);
#endif
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_no_reentry_with_isolation(void **state)
{
    (void)state;
#if defined(SPOOL_MEMCHECK)
    /* Memcheck runs one thread at a time: an outer job queued again while
     * another worker holds the lock may circle for a whole time slice. */
    unsigned long rounds = test_iters("SPOOL_TEST_ISOLATE_ROUNDS", 100);
#else
    unsigned long rounds = test_iters("SPOOL_TEST_ISOLATE_ROUNDS", 1000);
#endif
    spool_config_t config = {.num_threads = 3};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    atomic_store(&deepest, 0);
    atomic_store(&tls_broken, 0);
    long reentries = run_outer(pool, true, rounds, 4, 2000);
    print_message("with isolation: %lu rounds, %ld re-entries, %d deep\n", rounds, reentries,
                  atomic_load(&deepest));
    assert_int_equal(reentries, 0);
    assert_int_equal(atomic_load(&deepest), 1);
    assert_int_equal(atomic_load(&tls_broken), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* 10,000 outer jobs, each waiting on an inner loop: never two on a stack. */
static void test_stack_depth(void **state)
{
    (void)state;
    unsigned long n = test_iters("SPOOL_TEST_ISOLATE_OUTER", 10000);
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    atomic_store(&deepest, 0);
    atomic_store(&tls_broken, 0);
    long reentries = run_outer(pool, true, n / 100, 100, 0);
    assert_int_equal(reentries, 0);
    assert_int_equal(atomic_load(&deepest), 1);
    assert_int_equal(atomic_load(&tls_broken), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- composition -------------------------------------------------------------- */

typedef struct mix {
    atomic_long leaves, on_other_thread;
    unsigned spin_ns; /* each iteration's work; 0: 1 us */
    spool_pool_t *other; /* a second pool */
    int caller;          /* the isolating worker's index */
} mix_t;

static void leaf(void *ctx, size_t b, size_t e)
{
    mix_t *m = ctx;
    atomic_fetch_add(&m->leaves, (long)(e - b));
    if (spool_current_thread_index() != m->caller)
        atomic_fetch_add(&m->on_other_thread, (long)(e - b));
    test_busy_ns((long)(e - b) * (m->spin_ns != 0 ? m->spin_ns : 1000));
}

static void scope_job(spool_scope_t *s, void *arg)
{
    (void)s;
    mix_t *m = arg;
    spool_for(0, 8, NULL, leaf, m);
}

static void scope_body(spool_scope_t *s, void *arg)
{
    for (int i = 0; i < 16; i++)
        assert_int_equal(spool_scope_spawn(s, scope_job, arg), 0);
}

static void each_worker(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    mix_t *m = ctx;
    atomic_fetch_add(&m->leaves, 1);
}

static void in_other_pool(void *arg)
{
    mix_t *m = arg;
    spool_for(0, 100, NULL, leaf, m);
}

static void inner_region(void *arg)
{
    mix_t *m = arg;
    spool_for(0, 200, NULL, leaf, m);
}

static void nested_parts(void *ctx, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++)
        spool_isolate(inner_region, ctx);
}

static void region(void *arg)
{
    mix_t *m = arg;
    m->caller = spool_current_thread_index();
    spool_for(0, 1000, NULL, leaf, m);          /* 1000 */
    spool_scope(scope_body, m);                 /* 16 x 8 */
    spool_scope_fifo(scope_body, m);            /* 16 x 8 */
    assert_int_equal(spool_broadcast(each_worker, m), 0); /* one per worker */
    assert_int_equal(spool_pool_install(m->other, in_other_pool, m), 0); /* 100 */
    spool_for(0, 4, NULL, nested_parts, m);     /* 4 x 200, each in a region of its own */
}

static void run_region(void *arg)
{
    spool_isolate(region, arg);
}

static void test_composition(void **state)
{
    (void)state;
    for (unsigned threads = 1; threads <= 3; threads++) {
        spool_config_t config = {.num_threads = threads};
        spool_pool_t *pool, *other;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        assert_int_equal(spool_pool_create(&config, &other), 0);
        mix_t m = {.other = other};
        assert_int_equal(spool_pool_install(pool, run_region, &m), 0);
        assert_int_equal(atomic_load(&m.leaves), 1000 + 2 * 128 + threads + 100 + 800);
        if (threads > 1)
            print_message("%u threads: %ld of the region's iterations ran on other workers\n",
                          threads, atomic_load(&m.on_other_thread));
        assert_int_equal(spool_pool_destroy(pool), 0);
        assert_int_equal(spool_pool_destroy(other), 0);
    }
    /* From outside any pool: in the global pool. */
    mix_t m = {0};
    spool_config_t config = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&config, &m.other), 0);
    spool_isolate(region, &m);
    assert_int_equal(atomic_load(&m.leaves),
                     1000 + 2 * 128 + (long)spool_current_num_threads() + 100 + 800);
    assert_int_equal(spool_pool_destroy(m.other), 0);
}

static void region_loop_only(void *arg)
{
    mix_t *m = arg;
    m->caller = spool_current_thread_index();
    spool_for(0, 1000, NULL, leaf, m);
}

static void run_region_loop_only(void *arg)
{
    spool_isolate(region_loop_only, arg);
}

/* The isolated waiter helps, and others help it: a region's loop spreads. */
static void test_region_work_spreads(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    long other = 0;
    for (int round = 0; round < 50 && other == 0; round++) {
        mix_t m = {.spin_ns = 20000}; /* 20 ms of work: time for a sleeper to wake */
        assert_int_equal(spool_pool_install(pool, run_region_loop_only, &m), 0);
        assert_int_equal(atomic_load(&m.leaves), 1000);
        other = atomic_load(&m.on_other_thread);
    }
#if !defined(SPOOL_MEMCHECK) /* one thread at a time there: see above */
    assert_true(other > 0);
#endif
    (void)other;
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- progress: what a region waits for, it can run -------------------------- */

typedef struct progress {
    spool_pool_t *one, *two; /* a pool of one worker, a pool of two */
    spool_task_t *before;    /* submitted before the region */
    atomic_long steps;
} progress_t;

static void chain_step(void *arg)
{
    progress_t *p = arg;
    atomic_fetch_add(&p->steps, 1);
}

/* Inside a region on the pool's only worker: a chain of tasks made here and
 * waited for at its end, and a task made before the region. */
static void region_waits_for_tasks(void *arg)
{
    progress_t *p = arg;
    enum { N = 5 };
    spool_task_t *t[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(spool_task_create(NULL, chain_step, p, &t[i]), 0);
        if (i > 0)
            assert_int_equal(spool_task_precede(t[i - 1], t[i]), 0);
    }
    for (int i = N - 1; i >= 0; i--)
        assert_int_equal(spool_task_submit(t[i]), 0);
    assert_int_equal(spool_task_wait(t[N - 1]), 0);
    for (int i = 0; i < N; i++) {
        assert_true(spool_task_done(t[i]));
        spool_task_release(t[i]);
    }
    assert_int_equal(spool_task_wait(p->before), 0);
}

static void tasks_on_pool_of_one(void *arg)
{
    progress_t *p = arg;
    assert_int_equal(spool_task_create(NULL, chain_step, p, &p->before), 0);
    assert_int_equal(spool_task_submit(p->before), 0);
    spool_isolate(region_waits_for_tasks, p);
    spool_task_release(p->before);
}

static void back_in_one(void *arg)
{
    progress_t *p = arg;
    atomic_fetch_add(&p->steps, 1);
}

static void in_two(void *arg)
{
    progress_t *p = arg;
    /* Back into the pool whose only worker waits in the region for us. */
    assert_int_equal(spool_pool_install(p->one, back_in_one, p), 0);
}

static void region_installs_round_trip(void *arg)
{
    progress_t *p = arg;
    assert_int_equal(spool_pool_install(p->two, in_two, p), 0);
}

static void install_round_trip(void *arg)
{
    spool_isolate(region_installs_round_trip, arg);
}

static void count_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)index;
    (void)n;
    atomic_fetch_add(&((progress_t *)ctx)->steps, 1);
}

static void region_broadcasts(void *arg)
{
    assert_int_equal(spool_broadcast(count_broadcast, arg), 0);
}

static void isolate_broadcast(void *arg)
{
    spool_isolate(region_broadcasts, arg);
}

static void two_regions_broadcast(void *arg)
{
    spool_join(isolate_broadcast, arg, isolate_broadcast, arg);
}

/* A region waits for tasks it made (and one made before it) on a pool of
 * one; installs leave a region and come back to its pool of one; two
 * regions broadcast at once, each broadcast needing the other's waiter. */
static void test_region_progress(void **state)
{
    (void)state;
    progress_t p = {0};
    spool_config_t one = {.num_threads = 1}, two = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&one, &p.one), 0);
    assert_int_equal(spool_pool_create(&two, &p.two), 0);
    unsigned long rounds = test_iters("SPOOL_TEST_ISOLATE_ROUNDS", 200);
    for (unsigned long r = 0; r < rounds; r++) {
        atomic_store(&p.steps, 0);
        assert_int_equal(spool_pool_install(p.one, tasks_on_pool_of_one, &p), 0);
        assert_int_equal(atomic_load(&p.steps), 6);
        atomic_store(&p.steps, 0);
        assert_int_equal(spool_pool_install(p.one, install_round_trip, &p), 0);
        assert_int_equal(atomic_load(&p.steps), 1);
        atomic_store(&p.steps, 0);
        assert_int_equal(spool_pool_install(p.two, two_regions_broadcast, &p), 0);
        assert_int_equal(atomic_load(&p.steps), 4);
    }
    assert_int_equal(spool_pool_destroy(p.two), 0);
    assert_int_equal(spool_pool_destroy(p.one), 0);
}

static void isolate_null(void)
{
    spool_isolate(NULL, NULL);
}

static void test_null(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(isolate_null, "spool_isolate"), 0);
}

/* X1' (isolate.md): the top entry covers the deque's bottom whenever code
 * runs.  A context entered while the bottom lies below the top entry's base
 * gets an entry of its own, even with the same fields, and an entry that
 * becomes the top again covers the bottom, so that what is pushed there is
 * looked up in the code's own context and not in an older entry (a hang of
 * the stress mix: a region's jobs given to another region). */
static void test_ctx_enter_covers_bottom(void **state)
{
    (void)state;
    spool__ctx_stack_t c;
    assert_int_equal(spool__ctx_init(&c), 0);
    spool__context_t outer = {NULL, 7}, inner = {NULL, 8};
    assert_true(spool__ctx_enter(&c, 10, outer));
    assert_false(spool__ctx_enter(&c, 12, outer)); /* covered: nothing to push */
    assert_true(spool__ctx_enter(&c, 20, inner));
    /* A wait loop took jobs 19..15 (bottom 15), then runs one of inner's. */
    assert_int_equal(spool__ctx_lookup(&c, 15).region, 7);
    assert_true(spool__ctx_enter(&c, 15, inner));
    assert_int_equal(spool__ctx_lookup(&c, 15).region, 8);
    assert_int_equal(spool__ctx_lookup(&c, 14).region, 7); /* older jobs keep theirs */
    /* Back in inner's code with the bottom still at 15: its entry covers
     * the bottom from now on (spool__ctx_cover), so that what it pushes
     * there is inner's; the older jobs keep theirs. */
    spool__ctx_pop(&c, 15);
    assert_int_equal(c.top.region, 8);
    assert_int_equal(c.top_base, 15);
    assert_int_equal(spool__ctx_lookup(&c, 15).region, 8);
    assert_int_equal(spool__ctx_lookup(&c, 14).region, 7);
    /* The wait took 14..5 too; back in outer's code, outer covers 5. */
    spool__ctx_pop(&c, 5);
    assert_int_equal(c.top.region, 7);
    assert_int_equal(c.top_base, 5);
    assert_int_equal(spool__ctx_lookup(&c, 5).region, 7);
    assert_int_equal(spool__ctx_lookup(&c, 4).region, 0);
    spool__ctx_pop(&c, 5);
    assert_int_equal(c.top.region, 0);
    spool__ctx_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reentry_without_isolation),
        cmocka_unit_test(test_no_reentry_with_isolation),
        cmocka_unit_test(test_stack_depth),
        cmocka_unit_test(test_composition),
        cmocka_unit_test(test_region_work_spreads),
        cmocka_unit_test(test_region_progress),
        cmocka_unit_test(test_ctx_enter_covers_bottom),
        cmocka_unit_test(test_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
