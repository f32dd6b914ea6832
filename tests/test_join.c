/* spool_join, spool_join_inline and spool_fork_inline + spool_sync_inline
 * (spool_inline.h): recursive fib from outside any pool and inside pools of
 * 1, 2, 4 and 16 threads; a chain of joins deep enough to grow the deque
 * while b waits in it; both halves run; b is visible to idle workers; NULL
 * functions abort; a join whose b a wait inside a took leaves older jobs
 * alone.  Every test runs once with each join (the fork and sync
 * as a join, and fib typed, as a user writes it); the fork's own cases
 * (what the sync returns, no room to grow) at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spool.h"
#include "spool_inline.h"
#include "platform/test_hooks.h"
#include "test_util.h"

typedef void (*join_fn)(spool_fn a, void *arg_a, spool_fn b, void *arg_b);

/* spool_join_inline compiled into a function of its own, so that the tests
 * can take turns through one pointer: the inline path is still this
 * function's own code. */
static void join_inline(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    spool_join_inline(a, arg_a, b, arg_b);
}

/* A join made of a fork and a sync: b is run by the caller if the sync
 * gives it back, by the library otherwise. */
static void join_by_fork(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    spool_fork_t f;
    spool_fork_inline(&f, b, arg_b);
    a(arg_a);
    if (spool_sync_inline(&f))
        b(arg_b);
}

static join_fn join = spool_join;

static int use_spool_join(void **state)
{
    (void)state;
    join = spool_join;
    return 0;
}
static int use_join_inline(void **state)
{
    (void)state;
    join = join_inline;
    return 0;
}

/* fib with the join inlined where it is called, as a user writes it. */
static void fib_inline(void *arg)
{
    fib_task_t *t = (fib_task_t *)arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join_inline(fib_inline, &a, fib_inline, &b);
    t->result = a.result + b.result;
}

static int use_fork_sync(void **state)
{
    (void)state;
    join = join_by_fork;
    return 0;
}

/* fib typed, its arguments and results in registers: b's half goes through
 * fib_b only when a thief takes it or the sync's wait runs it. */
typedef struct fib_half {
    unsigned long n, result;
} fib_half_t;

static unsigned long fib_typed(unsigned long n);

static void fib_b(void *arg)
{
    fib_half_t *h = (fib_half_t *)arg;
    h->result = fib_typed(h->n);
}

static unsigned long fib_typed(unsigned long n)
{
    if (n < 2)
        return n;
    fib_half_t b = {n - 2, 0};
    spool_fork_t f;
    spool_fork_inline(&f, fib_b, &b);
    unsigned long a = fib_typed(n - 1);
    if (spool_sync_inline(&f))
        b.result = fib_typed(n - 2);
    return a + b.result;
}

static void fib_by_fork(void *arg)
{
    fib_task_t *t = (fib_task_t *)arg;
    t->result = fib_typed(t->n);
}

static spool_fn fib_of_this_test(void)
{
    return join == spool_join ? fib_join : join == join_inline ? fib_inline : fib_by_fork;
}

static void test_fib_outside_any_pool(void **state)
{
    (void)state;
    fib_task_t t = {25, 0};
    /* The first join enters the global pool; forks run here. */
    fib_of_this_test()(&t);
    assert_int_equal(t.result, fib_expected(25));
}

static void fib_in_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    unsigned long rounds = test_iters("SPOOL_TEST_FIB_ROUNDS", 3);
    for (unsigned long r = 0; r < rounds; r++) {
        fib_task_t t = {25, 0};
        assert_int_equal(spool_pool_install(pool, fib_of_this_test(), &t), 0);
        assert_int_equal(t.result, fib_expected(25));
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_fib_pool_1(void **state)
{
    (void)state;
    fib_in_pool(1);
}
static void test_fib_pool_2(void **state)
{
    (void)state;
    fib_in_pool(2);
}
static void test_fib_pool_4(void **state)
{
    (void)state;
    fib_in_pool(4);
}
static void test_fib_pool_16(void **state)
{
    (void)state;
    fib_in_pool(16);
}

/* A chain of joins, each a's own join nested: thousands of b's wait in one
 * deque, which grows while they do (the fast push fails at its limit, the
 * slow one grows the buffer), so each pop after a finds b in a newer
 * buffer.  Each b counts once. */
typedef struct chain {
    unsigned depth;
    atomic_ulong *b_runs;
} chain_t;

static void count_b(void *arg)
{
    atomic_fetch_add((atomic_ulong *)arg, 1);
}

static void descend(void *arg)
{
    chain_t *c = arg;
    if (c->depth == 0)
        return;
    chain_t next = {c->depth - 1, c->b_runs};
    join(descend, &next, count_b, c->b_runs);
}

/* A pool whose workers' stacks hold thousands of nested joins. */
static spool_pool_t *deep_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads, .stack_size = 64u << 20};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    return pool;
}

static void test_join_chain_grows_the_deque(void **state)
{
    (void)state;
    enum { DEPTH = 5000 };
    for (unsigned threads = 1; threads <= 2; threads++) {
        spool_pool_t *pool = deep_pool(threads);
        atomic_ulong b_runs;
        atomic_init(&b_runs, 0);
        chain_t c = {DEPTH, &b_runs};
        assert_int_equal(spool_pool_install(pool, descend, &c), 0);
        assert_int_equal(atomic_load(&b_runs), DEPTH);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Both halves run exactly once, and the second may run on a thief. */
typedef struct where {
    atomic_int runs;
    int thread_index;
} where_t;

static void record(void *arg)
{
    where_t *w = arg;
    atomic_fetch_add(&w->runs, 1);
    w->thread_index = spool_current_thread_index();
    test_sleep_ms(2); /* give thieves time to take the other half */
}

static void join_many(void *arg)
{
    int *stolen = arg;
    for (int i = 0; i < 200; i++) {
        where_t a = {0}, b = {0};
        atomic_init(&a.runs, 0);
        atomic_init(&b.runs, 0);
        join(record, &a, record, &b);
        if (atomic_load(&a.runs) != 1 || atomic_load(&b.runs) != 1)
            abort();
        if (a.thread_index != b.thread_index)
            (*stolen)++;
    }
}

/* body(&stolen) in a pool of two: how many of its b's ran on the other
 * worker. */
static int stolen_in_pool_of_two(spool_fn body)
{
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    int stolen = 0;
    assert_int_equal(spool_pool_install(pool, body, &stolen), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
    return stolen;
}

static void test_join_halves_run_once_and_get_stolen(void **state)
{
    (void)state;
    /* With a 2 ms half, the idle worker steals b at least sometimes. */
    assert_true(stolen_in_pool_of_two(join_many) > 0);
}

/* The split deque's promises (src/deque/deque.md): a job pushed while no public
 * job is left is public at once, and a private one is published at its
 * owner's next fork once the public part has run out (here: the idle worker
 * took the older public job).  Demand at a pop is test_scope.c's.  In both tests a() waits
 * (forking, in the second) until b has run on the other worker, for 10 s at
 * most; if b stayed invisible it would run after a(), on a's worker. */
typedef struct visible {
    atomic_int b_ran_on; /* -1 until b ran: where */
    int a_ran_on;
    int a_forks; /* a() forks while it waits */
} visible_t;

static void mark_b(void *arg)
{
    visible_t *v = arg;
    atomic_store(&v->b_ran_on, spool_current_thread_index());
}

static void wait_for_b(void *arg)
{
    visible_t *v = arg;
    v->a_ran_on = spool_current_thread_index();
    for (int ms = 0; ms < 10000 && atomic_load(&v->b_ran_on) < 0; ms++) {
        if (v->a_forks)
            for (int i = 0; i < 100; i++)
                join(test_nothing, NULL, test_nothing, NULL);
        test_sleep_ms(1);
    }
}

static void join_waiting_for_b(void *arg)
{
    join(wait_for_b, arg, mark_b, arg);
}

/* The outer join's b is the worker's oldest job, so public: the inner b is
 * pushed private (unless the other worker took the outer b already). */
static void join_under_a_public_job(void *arg)
{
    join(join_waiting_for_b, arg, test_nothing, NULL);
}

static void check_b_ran_elsewhere(spool_fn outer, int a_forks)
{
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (int round = 0; round < 20; round++) {
        visible_t v = {.a_ran_on = -1, .a_forks = a_forks};
        atomic_init(&v.b_ran_on, -1);
        assert_int_equal(spool_pool_install(pool, outer, &v), 0);
        assert_true(v.a_ran_on >= 0);
        assert_true(atomic_load(&v.b_ran_on) >= 0);
        assert_int_not_equal(atomic_load(&v.b_ran_on), v.a_ran_on);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_join_b_of_an_empty_deque_is_public(void **state)
{
    (void)state;
    check_b_ran_elsewhere(join_waiting_for_b, 0);
}

static void test_join_private_b_published_at_next_fork(void **state)
{
    (void)state;
    check_b_ran_elsewhere(join_under_a_public_job, 1);
}

/* Through a volatile pointer, so that the inline join cannot see the NULL
 * coming. */
static spool_fn volatile no_function = NULL;

static void join_null_a(void)
{
    join(no_function, NULL, test_nothing, NULL);
}
static void join_null_b(void)
{
    join(test_nothing, NULL, no_function, NULL);
}

static void test_join_null_function_aborts(void **state)
{
    (void)state;
    if (join == join_by_fork) { /* its a is the caller's own code */
        assert_int_equal(test_expect_abort(join_null_b, "spool_fork_inline: NULL function"), 0);
        return;
    }
    assert_int_equal(test_expect_abort(join_null_a, "spool_join: NULL function"), 0);
    assert_int_equal(test_expect_abort(join_null_b, "spool_join: NULL function"), 0);
}

/* The sync's answer: 1 exactly when b has not run (the caller runs it), 0
 * exactly when it has, on a thief at least sometimes (the 2 ms halves give
 * the idle worker time to take it).  Inside a pool of two and outside any
 * pool. */
static void fork_many(void *arg)
{
    int *stolen = arg;
    for (int i = 0; i < 200; i++) {
        where_t b = {0};
        atomic_init(&b.runs, 0);
        spool_fork_t f;
        spool_fork_inline(&f, record, &b);
        int a_ran_on = spool_current_thread_index();
        test_sleep_ms(2);
        int mine = spool_sync_inline(&f);
        if (atomic_load(&b.runs) != (mine ? 0 : 1))
            abort();
        /* A 0 with b run here: b was public (the deque's only job), and
         * the sync's slow pop found it before a thief did. */
        if (!mine && b.thread_index != a_ran_on)
            (*stolen)++;
    }
}

static void test_fork_sync_says_whether_b_ran(void **state)
{
    (void)state;
    assert_true(stolen_in_pool_of_two(fork_many) > 0);
    /* Outside any pool the fork offers nothing: b always comes back. */
    where_t b = {0};
    atomic_init(&b.runs, 0);
    spool_fork_t f;
    spool_fork_inline(&f, record, &b);
    assert_int_equal(spool_sync_inline(&f), 1);
    assert_int_equal(atomic_load(&b.runs), 0);
}

/* Forks nest with no room to grow: a chain deeper than the deque, whose
 * growth fails, so the forks past its end push nothing (their frames say so:
 * no execute) and their syncs give b back, after popping, and putting back,
 * an older fork's b.  Each b runs once. */
typedef struct fork_chain {
    unsigned depth;
    atomic_ulong *b_runs;
    unsigned long *given_back;
} fork_chain_t;

static unsigned long unpushed;

static void fork_descend(void *arg)
{
    fork_chain_t *c = (fork_chain_t *)arg;
    if (c->depth == 0)
        return;
    fork_chain_t next = {c->depth - 1, c->b_runs, c->given_back};
    spool_fork_t f;
    spool_fork_inline(&f, count_b, c->b_runs);
    if (f.spool__frame.execute == NULL)
        unpushed++;
    fork_descend(&next);
    if (spool_sync_inline(&f)) {
        ++*c->given_back;
        count_b(c->b_runs);
    }
}

static void test_fork_with_no_room_to_grow(void **state)
{
    (void)state;
    enum { DEPTH = 2000 }; /* beyond the deque's first 256 slots */
    for (unsigned threads = 1; threads <= 2; threads++) {
        spool_pool_t *pool = deep_pool(threads);
        atomic_ulong b_runs;
        atomic_init(&b_runs, 0);
        unsigned long given_back = 0;
        fork_chain_t c = {DEPTH, &b_runs, &given_back};
        unpushed = 0;
        spool__test_fail_deque_grow(1);
        int rc = spool_pool_install(pool, fork_descend, &c);
        spool__test_fail_deque_grow(0);
        assert_int_equal(rc, 0);
        assert_int_equal(atomic_load(&b_runs), DEPTH);
        if (threads == 1) {
            /* Nobody steals: every b comes back, the unpushed too, but the
             * first, public (its deque held no other job), which the sync's
             * slow pop finds and runs. */
            assert_int_equal(given_back, DEPTH - 1);
            assert_true(unpushed >= DEPTH - 256);
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- a join whose b a wait inside a took ------------------------------------ */

/* On a pool of one worker (no thief): the outer join's a makes an inner
 * join whose a waits for a task that is ready only once the inner b has
 * run, so that wait takes b from the deque and runs it.  When the inner a
 * returns, the newest job is the outer join's b, older than the inner b:
 * the inner join may run it (as a wait there would), but in the outer
 * join's context, not its own: here the inner join runs inside a scope
 * that is cancelled, and the outer b must not find itself inside it.
 * Inside an isolation region it must not run at all (it was made outside
 * the region): the outer join runs it once the outer a has returned. */
typedef struct taken_b {
    spool_pool_t *pool;
    spool_task_t *pred; /* submitted by the inner b */
    bool isolated;
    atomic_int inner_b_ran, outer_a_done, outer_b_ran, outer_b_early, outer_b_cancelled;
} taken_b_t;

static void inner_b(void *arg)
{
    taken_b_t *t = arg;
    atomic_store(&t->inner_b_ran, 1);
    if (spool_task_submit(t->pred) != 0)
        abort();
}

static void inner_a(void *arg)
{
    taken_b_t *t = arg;
    spool_task_t *task;
    if (spool_task_create(t->pool, test_nothing, NULL, &task) != 0 ||
        spool_task_precede(t->pred, task) != 0 || spool_task_submit(task) != 0)
        abort();
    if (spool_task_wait(task) != 0) /* runs inner_b, then pred, then task */
        abort();
    spool_task_release(task);
}

static void inner_join(void *arg)
{
    join(inner_a, arg, inner_b, arg);
}

static void cancelled_body(spool_scope_t *s, void *arg)
{
    taken_b_t *t = arg;
    if (spool_scope_cancel(s) != 0)
        abort();
    if (t->isolated)
        spool_isolate(inner_join, t);
    else
        inner_join(t);
}

static void outer_a(void *arg)
{
    taken_b_t *t = arg;
    spool_scope(cancelled_body, t);
    atomic_store(&t->outer_a_done, 1);
}

static void note_cancelled(spool_scope_t *s, void *arg)
{
    taken_b_t *t = arg;
    atomic_store(&t->outer_b_cancelled, spool_scope_is_cancelled(s));
}

static void outer_b(void *arg)
{
    taken_b_t *t = arg;
    if (!atomic_load(&t->outer_a_done))
        atomic_store(&t->outer_b_early, 1);
    /* A scope made here is a child of the scope outer_b runs in. */
    spool_scope(note_cancelled, t);
    atomic_store(&t->outer_b_ran, 1);
}

static void outer_join(void *arg)
{
    join(outer_a, arg, outer_b, arg);
}

static void run_taken_b(bool isolated)
{
    taken_b_t t = {.pool = test_pool(1), .isolated = isolated};
    assert_int_equal(spool_task_create(t.pool, test_nothing, NULL, &t.pred), 0);
    assert_int_equal(spool_pool_install(t.pool, outer_join, &t), 0);
    assert_int_equal(atomic_load(&t.inner_b_ran), 1);
    assert_int_equal(atomic_load(&t.outer_b_ran), 1);
    /* Run early or not, never inside the cancelled scope. */
    assert_int_equal(atomic_load(&t.outer_b_cancelled), 0);
    if (isolated)
        assert_int_equal(atomic_load(&t.outer_b_early), 0);
    assert_int_equal(spool_task_wait(t.pred), 0);
    spool_task_release(t.pred);
    assert_int_equal(spool_pool_destroy(t.pool), 0);
}

static void test_join_runs_older_jobs_in_their_context(void **state)
{
    (void)state;
    run_taken_b(false);
}

static void test_join_leaves_older_jobs_of_other_regions(void **state)
{
    (void)state;
    run_taken_b(true);
}

int main(void)
{
#define ALL_JOINS(test)                                                                           \
    {#test, test, use_spool_join, NULL, NULL},                                                     \
        {#test " (inline)", test, use_join_inline, NULL, NULL},                                    \
        {#test " (fork/sync)", test, use_fork_sync, NULL, NULL}
    const struct CMUnitTest tests[] = {
        ALL_JOINS(test_join_null_function_aborts),
        ALL_JOINS(test_fib_outside_any_pool),
        ALL_JOINS(test_fib_pool_1),
        ALL_JOINS(test_fib_pool_2),
        ALL_JOINS(test_fib_pool_4),
        ALL_JOINS(test_fib_pool_16),
        ALL_JOINS(test_join_chain_grows_the_deque),
        ALL_JOINS(test_join_halves_run_once_and_get_stolen),
        ALL_JOINS(test_join_b_of_an_empty_deque_is_public),
        ALL_JOINS(test_join_private_b_published_at_next_fork),
        ALL_JOINS(test_join_runs_older_jobs_in_their_context),
        ALL_JOINS(test_join_leaves_older_jobs_of_other_regions),
        cmocka_unit_test(test_fork_sync_says_whether_b_ran),
        cmocka_unit_test(test_fork_with_no_room_to_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
