/*
 * Cancellation of scopes (spool_scope_cancel, spool_scope_is_cancelled):
 * a scope of 100,000 spawns cancelled by its 10th job runs far fewer, each
 * once; spawns after a cancel fail with ECANCELED; a cancel from a job on
 * another thread; cancellation reaches scopes made inside (through joins
 * and loops too) but never up; a cancelled scope inside a loop inside a
 * scope; dropped jobs counted in the statistics; detached spawns made in a
 * cancelled scope are not cancelled.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

enum { SPAWNS = 100000 };

typedef struct many {
    spool_scope_t *scope;
    atomic_long started;
    _Atomic unsigned char *ran; /* per job: how many times it ran */
    atomic_int refused;         /* spawns refused with ECANCELED */
    long spawned;
} many_t;

static many_t *many_of;

static void many_job(spool_scope_t *s, void *arg)
{
    size_t i = (size_t)(uintptr_t)arg;
    atomic_fetch_add(&many_of->ran[i], 1);
    if (atomic_fetch_add(&many_of->started, 1) + 1 == 10) {
        assert_int_equal(spool_scope_cancel(s), 0);
        assert_int_equal(spool_scope_cancel(s), 0); /* twice is fine */
        assert_int_equal(spool_scope_is_cancelled(s), 1);
        assert_int_equal(spool_scope_spawn(s, many_job, NULL), ECANCELED);
        assert_int_equal(spool_scope_spawn_broadcast(s, NULL, NULL), EINVAL);
        atomic_fetch_add(&many_of->refused, 1);
    }
}

static void many_body(spool_scope_t *s, void *arg)
{
    many_t *m = arg;
    m->scope = s;
    for (size_t i = 0; i < SPAWNS; i++) {
        int err = spool_scope_spawn(s, many_job, (void *)(uintptr_t)i);
        if (err == ECANCELED)
            break; /* the 10th job ran already, on another worker */
        assert_int_equal(err, 0);
        m->spawned++;
    }
}

static void run_many(void *arg)
{
    spool_scope(many_body, arg);
}

static void test_cancel_by_the_tenth_job(void **state)
{
    (void)state;
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        spool_config_t config = {.num_threads = threads};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        many_t m = {0};
        m.ran = calloc(SPAWNS, 1);
        many_of = &m;
        assert_int_equal(spool_pool_install(pool, run_many, &m), 0);
        long ran = 0;
        for (size_t i = 0; i < SPAWNS; i++) {
            assert_true(m.ran[i] <= 1);
            ran += m.ran[i];
        }
        print_message("%u threads: %ld of the spawns ran after the 10th cancelled the scope\n",
                      threads, ran);
        assert_int_equal(ran, atomic_load(&m.started));
        assert_int_equal(atomic_load(&m.refused), 1);
        assert_true(ran >= 10);
        assert_true(ran < SPAWNS / 10);
#ifdef SPOOL_STATS
        unsigned long long dropped = 0;
        for (unsigned i = 0; i < threads; i++) {
            spool_worker_stats_t st;
            assert_int_equal(spool_pool_stats(pool, i, &st, sizeof st), 0);
            dropped += st.jobs_dropped;
        }
        /* Every job spawned and not run was dropped, and counted. */
        assert_int_equal(dropped, (unsigned long long)(m.spawned - ran));
#endif
        free(m.ran);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- a cancel from another thread's job, and the reach ------------------ */

typedef struct reach {
    spool_scope_t *outer;
    atomic_int inner_cancelled, inner_ran, outer_seen;
    atomic_int started, go;
} reach_t;

static void inner_job(spool_scope_t *s, void *arg)
{
    (void)s;
    reach_t *r = arg;
    atomic_fetch_add(&r->inner_ran, 1);
}

static void inner_body(spool_scope_t *s, void *arg)
{
    reach_t *r = arg;
    /* Made inside a job of a cancelled scope: cancelled too. */
    if (spool_scope_is_cancelled(s))
        atomic_fetch_add(&r->inner_cancelled, 1);
    assert_int_equal(spool_scope_spawn(s, inner_job, r), ECANCELED);
}

static void in_loop(void *ctx, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++)
        spool_scope(inner_body, ctx);
}

/* Waits (without running other jobs, which could be after_cancel) until
 * after_cancel has started, then cancels the scope. */
static void canceller(spool_scope_t *s, void *arg)
{
    reach_t *r = arg;
    while (!atomic_load(&r->started))
        test_sleep_ms(1);
    assert_int_equal(spool_scope_cancel(s), 0);
    atomic_store(&r->go, 1);
}

/* Spawned after canceller, so that its own worker starts it first. */
static void after_cancel(spool_scope_t *s, void *arg)
{
    reach_t *r = arg;
    atomic_store(&r->started, 1);
    while (!atomic_load(&r->go))
        spool_yield_now(); /* may run canceller, at one thread */
    /* A job already running goes on: it sees the cancel, and what it opens
     * now (directly, and in a loop's parts on any thread) is cancelled. */
    if (spool_scope_is_cancelled(s))
        atomic_fetch_add(&r->outer_seen, 1);
    spool_scope(inner_body, r);
    spool_for_opts_t each = {.max_len = 1};
    spool_for(0, 8, &each, in_loop, r);
}

static void reach_body(spool_scope_t *s, void *arg)
{
    reach_t *r = arg;
    r->outer = s;
    assert_int_equal(spool_scope_spawn(s, canceller, r), 0);
    assert_int_equal(spool_scope_spawn(s, after_cancel, r), 0);
}

static void enclosing_body(spool_scope_t *s, void *arg)
{
    reach_t *r = arg;
    spool_scope(reach_body, r);
    /* Never up: the enclosing scope is not cancelled. */
    assert_int_equal(spool_scope_is_cancelled(s), 0);
    assert_int_equal(spool_scope_spawn(s, inner_job, r), 0);
}

static void run_reach(void *arg)
{
    spool_scope(enclosing_body, arg);
}

static void test_reach_down_not_up(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (int round = 0; round < 20; round++) {
        reach_t r = {0};
        assert_int_equal(spool_pool_install(pool, run_reach, &r), 0);
        assert_int_equal(atomic_load(&r.outer_seen), 1);
        assert_int_equal(atomic_load(&r.inner_cancelled), 9); /* 1 + 8 in the loop */
        assert_int_equal(atomic_load(&r.inner_ran), 1);       /* the enclosing scope's */
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* A cancelled scope inside a loop inside a scope: only its own jobs drop. */
typedef struct nest {
    atomic_long kept, side_ran, side_after_cancel;
} nest_t;

static void counted(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&((nest_t *)arg)->kept, 1);
}

static void side(spool_scope_t *s, void *arg)
{
    nest_t *n = arg;
    if (spool_scope_is_cancelled(s))
        atomic_fetch_add(&n->side_after_cancel, 1); /* past its check before the cancel */
    atomic_fetch_add(&n->side_ran, 1);
}

static void cancelled_inner(spool_scope_t *s, void *arg)
{
    for (int i = 0; i < 50; i++)
        assert_int_equal(spool_scope_spawn(s, side, arg), 0);
    assert_int_equal(spool_scope_cancel(s), 0);
}

static void counted_scope_body(spool_scope_t *s, void *arg);

static void loop_part(void *ctx, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++) {
        if (i == 3)
            spool_scope(cancelled_inner, ctx);
        else
            spool_scope(counted_scope_body, ctx);
    }
}

static void counted_scope_body(spool_scope_t *s, void *arg)
{
    for (int i = 0; i < 10; i++)
        assert_int_equal(spool_scope_spawn(s, counted, arg), 0);
}

static void outer_of_loop(spool_scope_t *s, void *arg)
{
    (void)s;
    spool_for(0, 8, NULL, loop_part, arg);
}

static void run_nest(void *arg)
{
    spool_scope(outer_of_loop, arg);
}

static void test_cancelled_scope_in_a_loop(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 3};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    nest_t n = {0};
    assert_int_equal(spool_pool_install(pool, run_nest, &n), 0);
    assert_int_equal(atomic_load(&n.kept), 70);          /* 7 scopes x 10 */
    assert_true(atomic_load(&n.side_ran) < 50);
    assert_true(atomic_load(&n.side_after_cancel) <= 3); /* at most one per worker */
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- detached work made in a cancelled scope is not cancelled --------------- */

typedef struct detached {
    atomic_int inner_spawned, inner_refused, ran;
} detached_t;

static void detached_inner_job(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&((detached_t *)arg)->ran, 1);
}

static void detached_inner_body(spool_scope_t *s, void *arg)
{
    detached_t *d = arg;
    if (spool_scope_spawn(s, detached_inner_job, d) == 0)
        atomic_fetch_add(&d->inner_spawned, 1);
    else
        atomic_fetch_add(&d->inner_refused, 1);
}

static void detached_fn(void *arg)
{
    spool_scope(detached_inner_body, arg); /* a scope of its own, in no outer scope */
}

static void detached_fifo_fn(void *arg)
{
    spool_scope(detached_inner_body, arg);
}

static void spawn_detached_then_cancel(spool_scope_t *s, void *arg)
{
    for (int i = 0; i < 50; i++) {
        assert_int_equal(spool_spawn(detached_fn, arg), 0);
        assert_int_equal(spool_spawn_fifo(detached_fifo_fn, arg), 0);
    }
    assert_int_equal(spool_scope_cancel(s), 0);
    /* While the scope is cancelled and not ended, the other worker steals
     * and runs them (the body keeps this worker busy). */
    detached_t *d = arg;
    for (int ms = 0; ms < 20000; ms++) {
        if (atomic_load(&d->inner_spawned) + atomic_load(&d->inner_refused) == 100)
            break;
        test_sleep_ms(1);
    }
}

static void run_detached_case(void *arg)
{
    spool_scope(spawn_detached_then_cancel, arg);
}

/* Detached spawns (LIFO and FIFO) made in a scope that is then cancelled
 * run, and the scopes they make are not cancelled: they are none of its. */
static void test_detached_spawns_not_cancelled(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    detached_t d = {0};
    assert_int_equal(spool_pool_install(pool, run_detached_case, &d), 0);
    assert_int_equal(spool_pool_destroy(pool), 0); /* waits for the spawns */
    assert_int_equal(atomic_load(&d.inner_refused), 0);
    assert_int_equal(atomic_load(&d.inner_spawned), 100);
    assert_int_equal(atomic_load(&d.ran), 100);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(spool_scope_cancel(NULL), EINVAL);
    assert_int_equal(spool_scope_is_cancelled(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_by_the_tenth_job),
        cmocka_unit_test(test_reach_down_not_up),
        cmocka_unit_test(test_cancelled_scope_in_a_loop),
        cmocka_unit_test(test_detached_spawns_not_cancelled),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
