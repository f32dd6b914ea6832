/* Typed tasks (spool_typed.h): every arity, void and value tasks, structs
 * by value, spawns in loops, tasks stolen and not, spool calls inside
 * bodies, DECL/IMPL across two files (typed_impl.c), SPOOL_RUN from
 * outside and from a worker, SPOOL_RUN_IN at several pool sizes, and the
 * checks that name a task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "typed_tasks.h"

#include "spool_loop.h"
#include "test_util.h"

/* ---- tasks ----------------------------------------------------------------- */

SPOOL_TASK_1(long, fib, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(fib, n - 2);
    long a = SPOOL_CALL(fib, n - 1);
    return a + SPOOL_SYNC(fib);
}

static long fib_seq(long n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

/* One task of each arity, value and void; the void ones add to *out. */
SPOOL_TASK_0(long, v0)
{
    return 1000;
}
SPOOL_TASK_1(long, v1, long, a)
{
    return a;
}
SPOOL_TASK_2(long, v2, long, a, int, b)
{
    return a * 10 + b;
}
SPOOL_TASK_3(long, v3, long, a, short, b, char, c)
{
    return a * 100 + b * 10 + c;
}
SPOOL_TASK_4(double, v4, double, a, float, b, long, c, unsigned, d)
{
    return a + (double)b + (double)c + d;
}
SPOOL_TASK_5(long, v5, long, a, long, b, long, c, long, d, long, e)
{
    return a - b + c - d + e;
}
SPOOL_TASK_6(long, v6, long, a, long, b, long, c, long, d, long, e, long, f)
{
    return a * b + c * d + e * f;
}

static atomic_long void_total;

SPOOL_VOID_TASK_0(w0)
{
    atomic_fetch_add(&void_total, 1);
}
SPOOL_VOID_TASK_1(w1, long, a)
{
    atomic_fetch_add(&void_total, a);
}
SPOOL_VOID_TASK_2(w2, long, a, long, b)
{
    atomic_fetch_add(&void_total, a + b);
}
SPOOL_VOID_TASK_3(w3, long, a, long, b, long, c)
{
    atomic_fetch_add(&void_total, a + b + c);
}
SPOOL_VOID_TASK_4(w4, long, a, long, b, long, c, long, d)
{
    atomic_fetch_add(&void_total, a + b + c + d);
}
SPOOL_VOID_TASK_5(w5, long, a, long, b, long, c, long, d, long, e)
{
    atomic_fetch_add(&void_total, a + b + c + d + e);
}
SPOOL_VOID_TASK_6(w6, long, a, long, b, long, c, long, d, long, e, long, f)
{
    atomic_fetch_add(&void_total, a + b + c + d + e + f);
}

/* Every arity spawned and synced inside a task, and called. */
SPOOL_TASK_0(long, all_arities)
{
    SPOOL_SPAWN(v0);
    SPOOL_SPAWN(v1, 7);
    SPOOL_SPAWN(v2, 4, 2);
    SPOOL_SPAWN(v3, 1, 2, 3);
    SPOOL_SPAWN(v4, 0.5, 0.25f, 2, 3u);
    SPOOL_SPAWN(v5, 9, 1, 5, 2, 4);
    SPOOL_SPAWN(v6, 1, 2, 3, 4, 5, 6);
    SPOOL_SPAWN(w0);
    SPOOL_SPAWN(w1, 1);
    SPOOL_SPAWN(w2, 1, 1);
    SPOOL_SPAWN(w3, 1, 1, 1);
    SPOOL_SPAWN(w4, 1, 1, 1, 1);
    SPOOL_SPAWN(w5, 1, 1, 1, 1, 1);
    SPOOL_SPAWN(w6, 1, 1, 1, 1, 1, 1);
    SPOOL_SYNC(w6);
    SPOOL_SYNC(w5);
    SPOOL_SYNC(w4);
    SPOOL_SYNC(w3);
    SPOOL_SYNC(w2);
    SPOOL_SYNC(w1);
    SPOOL_SYNC(w0);
    long r = 0;
    r += SPOOL_SYNC(v6) == 44;
    r += SPOOL_SYNC(v5) == 15;
    r += SPOOL_SYNC(v4) == 5.75;
    r += SPOOL_SYNC(v3) == 123;
    r += SPOOL_SYNC(v2) == 42;
    r += SPOOL_SYNC(v1) == 7;
    r += SPOOL_SYNC(v0) == 1000;
    r += SPOOL_CALL(v0) == 1000;
    r += SPOOL_CALL(v6, 1, 1, 1, 1, 1, 1) == 3;
    SPOOL_CALL(w6, 1, 1, 1, 1, 1, 1);
    return r; /* 9 when all are right */
}

/* Structs by value, both ways. */
typedef struct big {
    long v[6];
} big_t;

SPOOL_TASK_2(big_t, big_scale, big_t, b, long, k)
{
    big_t r;
    for (int i = 0; i < 6; i++)
        r.v[i] = b.v[i] * k;
    return r;
}

SPOOL_TASK_1(big_t, big_tree, int, depth)
{
    big_t one = {{1, 2, 3, 4, 5, 6}};
    if (depth == 0)
        return one;
    SPOOL_SPAWN(big_tree, depth - 1);
    SPOOL_SPAWN(big_scale, one, depth);
    big_t a = SPOOL_CALL(big_tree, depth - 1);
    big_t s = SPOOL_SYNC(big_scale);
    big_t b = SPOOL_SYNC(big_tree);
    big_t r;
    for (int i = 0; i < 6; i++)
        r.v[i] = a.v[i] + b.v[i] + s.v[i] - (long)depth * one.v[i];
    return r; /* 2^depth times one */
}

/* Spawns in a loop, synced in a loop, newest first; each returns its i. */
SPOOL_TASK_1(long, ident, long, i)
{
    return i;
}

SPOOL_TASK_1(long, loop_spawns, long, k)
{
    for (long i = 0; i < k; i++)
        SPOOL_SPAWN(ident, i);
    long bad = 0;
    for (long i = k - 1; i >= 0; i--)
        bad += SPOOL_SYNC(ident) != i;
    /* The same again, interleaved with a nested task in each step. */
    for (long i = 0; i < k; i++) {
        SPOOL_SPAWN(ident, i);
        SPOOL_SPAWN(fib, 10);
        bad += SPOOL_SYNC(fib) != 55;
        bad += SPOOL_SYNC(ident) != i;
    }
    return bad;
}

/* Where a spawned task ran: 1 if not on the spawner's thread.  It works
 * a fixed stretch of wall time, the same in every build: in a pool of more
 * threads than CPUs the idle workers' searches may wait behind the
 * spawner on its CPU (a yield) until the OS moves them, and a burst of
 * shorter tasks could end unstolen round after round. */
SPOOL_TASK_1(int, elsewhere, int, spawner)
{
    test_busy_ns(100000);
    return spool_current_thread_index() != spawner;
}

SPOOL_TASK_1(long, count_stolen, int, k)
{
    int me = spool_current_thread_index();
    for (int i = 0; i < k; i++)
        SPOOL_SPAWN(elsewhere, me);
    long stolen = 0;
    for (int i = 0; i < k; i++)
        stolen += SPOOL_SYNC(elsewhere);
    return stolen;
}

/* spool calls inside bodies: a join, a loop, a scope, a group, isolation
 * and a nested SPOOL_RUN, each running typed tasks in turn. */
typedef struct sub {
    long n, result;
} sub_t;

static void fib_job(void *arg)
{
    sub_t *s = arg;
    s->result = SPOOL_RUN(fib, s->n);
}

static void fib_scoped(spool_scope_t *scope, void *arg)
{
    (void)scope;
    fib_job(arg);
}

static void fib_range(void *ctx, size_t b, size_t e)
{
    atomic_long *sum = ctx;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add(sum, SPOOL_RUN(fib, (long)(i % 15)));
}

SPOOL_TASK_1(long, mixed, long, n)
{
    long bad = 0;
    SPOOL_SPAWN(fib, n);
    sub_t a = {n, 0}, b = {n - 1, 0};
    spool_join(fib_job, &a, fib_job, &b);
    bad += a.result != fib_seq(n) || b.result != fib_seq(n - 1);
    atomic_long sum = 0;
    spool_for(0, 300, NULL, fib_range, &sum);
    long want = 0;
    for (long i = 0; i < 300; i++)
        want += fib_seq(i % 15);
    bad += atomic_load(&sum) != want;
    sub_t s = {n, 0};
    spool_scope(fib_scoped, &s);
    bad += s.result != fib_seq(n);
    spool_group_t g;
    sub_t gs[4];
    spool_group_init(&g);
    for (int i = 0; i < 4; i++) {
        gs[i] = (sub_t){n - i, 0};
        bad += spool_group_spawn(&g, fib_scoped, &gs[i]) != 0;
    }
    spool_group_wait(&g);
    for (int i = 0; i < 4; i++)
        bad += gs[i].result != fib_seq(n - i);
    sub_t iso = {n, 0};
    spool_isolate(fib_job, &iso);
    bad += iso.result != fib_seq(n);
    bad += SPOOL_RUN(fib, n) != fib_seq(n);
    bad += SPOOL_SYNC(fib) != fib_seq(n);
    return bad;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_typed_fib_outside(void **state)
{
    (void)state;
    /* From outside any pool: the global pool, the caller taking part. */
    assert_int_equal(SPOOL_RUN(fib, 24), fib_seq(24));
    assert_int_equal(spool_current_thread_index(), -1);
}

static void test_typed_run_in_sizes(void **state)
{
    (void)state;
    static const unsigned sizes[] = {1, 2, 3, 7};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        spool_pool_t *pool = test_pool(sizes[s]);
        assert_int_equal(SPOOL_RUN_IN(pool, fib, 22), fib_seq(22));
        assert_int_equal(SPOOL_RUN_IN(pool, all_arities), 9);
        assert_int_equal(SPOOL_RUN_IN(pool, tanswer), 42);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

static void test_typed_every_arity(void **state)
{
    (void)state;
    atomic_store(&void_total, 0);
    assert_int_equal(SPOOL_RUN(all_arities), 9);
    /* w0..w6 spawned (0+1+2+..+6 plus 1 for w0's own) and w6 called. */
    assert_int_equal(atomic_load(&void_total), 1 + 1 + 2 + 3 + 4 + 5 + 6 + 6);
    atomic_store(&void_total, 0);
    SPOOL_RUN(w3, 1, 2, 3);
    SPOOL_RUN(w0);
    assert_int_equal(atomic_load(&void_total), 7);
    assert_int_equal(SPOOL_RUN(v2, 3, 4), 34);
    assert_true(SPOOL_RUN(v4, 1.0, 2.0f, 3, 4u) == 10.0);
}

static void test_typed_structs(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(3);
    for (int depth = 0; depth <= 12; depth += 4) {
        big_t r = SPOOL_RUN_IN(pool, big_tree, depth);
        for (int i = 0; i < 6; i++)
            assert_int_equal(r.v[i], (1L << depth) * (i + 1));
    }
    big_t b = {{1, 1, 1, 1, 1, 1}};
    big_t r = SPOOL_RUN(big_scale, b, 5);
    assert_int_equal(r.v[5], 5);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_typed_loops(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(3);
    long k = (long)test_iters("SPOOL_TEST_TYPED_LOOP", 5000);
    for (int r = 0; r < 3; r++)
        assert_int_equal(SPOOL_RUN_IN(pool, loop_spawns, k), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_typed_stolen(void **state)
{
    (void)state;
    /* One worker: nothing can be stolen.  Four: idle workers take some of
     * a burst of 64 (they ask, the spawner publishes at its next spawn). */
    spool_pool_t *one = test_pool(1);
    assert_int_equal(SPOOL_RUN_IN(one, count_stolen, 64), 0);
    assert_int_equal(spool_pool_destroy(one), 0);
    spool_pool_t *four = test_pool(4);
    long stolen = 0;
    for (int r = 0; r < 200 && stolen == 0; r++)
        stolen += SPOOL_RUN_IN(four, count_stolen, 64);
    assert_true(stolen > 0);
    assert_int_equal(SPOOL_RUN_IN(four, fib, 25), fib_seq(25));
    assert_int_equal(spool_pool_destroy(four), 0);
}

static void test_typed_spool_calls_inside(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(3);
    assert_int_equal(SPOOL_RUN_IN(pool, mixed, 16), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
    assert_int_equal(SPOOL_RUN(mixed, 14), 0);
}

/* SPOOL_RUN from a worker runs there, on the worker's own thread. */
static void run_from_worker(void *arg)
{
    long *out = arg;
    int me = spool_current_thread_index();
    out[0] = SPOOL_RUN(fib, 20);
    out[1] = me >= 0 && spool_current_thread_index() == me;
}

static void test_typed_run_from_worker(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(2);
    long out[2] = {0, 0};
    assert_int_equal(spool_pool_install(pool, run_from_worker, out), 0);
    assert_int_equal(out[0], fib_seq(20));
    assert_int_equal(out[1], 1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_typed_two_files(void **state)
{
    (void)state;
    enum { N = 10000 };
    long *a = malloc(N * sizeof *a);
    assert_non_null(a);
    for (long i = 0; i < N; i++)
        a[i] = i;
    spool_pool_t *pool = test_pool(3);
    SPOOL_RUN_IN(pool, tinc, a, N);
    assert_int_equal(SPOOL_RUN_IN(pool, tsum, a, N), (long)N * (N + 1) / 2);
    SPOOL_RUN(tinc, a, N);
    assert_int_equal(SPOOL_RUN(tsum, a, N), (long)N * (N + 3) / 2);
    assert_int_equal(SPOOL_RUN(tanswer), 42);
    assert_int_equal(spool_pool_destroy(pool), 0);
    free(a);
}

/* ---- the checks that name a task -------------------------------------------- */

SPOOL_TASK_0(int, forgets_sync)
{
    SPOOL_SPAWN(v1, 1);
    return 0;
}

SPOOL_TASK_0(long, syncs_other)
{
    SPOOL_SPAWN(v1, 1);
    return SPOOL_SYNC(v0);
}

SPOOL_TASK_1(long, spawns_forever, long, k)
{
    for (long i = 0; i < k; i++)
        SPOOL_SPAWN(v1, i);
    long s = 0;
    for (long i = 0; i < k; i++)
        s += SPOOL_SYNC(v1);
    return s;
}

static void run_forgets_sync(void)
{
    (void)SPOOL_RUN(forgets_sync);
}

static void run_syncs_other(void)
{
    (void)SPOOL_RUN(syncs_other);
}

static void run_spawns_forever(void)
{
    (void)SPOOL_RUN(spawns_forever, 1L << 40);
}

static void run_in_null(void)
{
    (void)SPOOL_RUN_IN(NULL, v0);
}

static void test_typed_checks_abort(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(run_forgets_sync, "forgets_sync"), 0);
    assert_int_equal(test_expect_abort(run_syncs_other, "v0"), 0);
    assert_int_equal(test_expect_abort(run_spawns_forever, "v1"), 0);
    assert_int_equal(test_expect_abort(run_in_null, "SPOOL_RUN_IN"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_fib_outside),
        cmocka_unit_test(test_typed_run_in_sizes),
        cmocka_unit_test(test_typed_every_arity),
        cmocka_unit_test(test_typed_structs),
        cmocka_unit_test(test_typed_loops),
        cmocka_unit_test(test_typed_stolen),
        cmocka_unit_test(test_typed_spool_calls_inside),
        cmocka_unit_test(test_typed_run_from_worker),
        cmocka_unit_test(test_typed_two_files),
        cmocka_unit_test(test_typed_checks_abort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
