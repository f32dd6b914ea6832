/*
 * The loop memo (src/loop/loop.c): a loop that was short the last time its
 * worker ran it (same body, same length) runs whole, as one leaf; the leaf
 * still splits when it turns out long, and max_len still bounds every part.
 * "Short" is a bound a sanitizer's or valgrind's slowness would cross:
 * the tests set it far higher
 * (spool__test_set_loop_short_ticks), so that what they check is the
 * memo's rules in every build, not the bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>

#include "spool.h"
#include "platform/test_hooks.h"
#include "test_util.h"

enum { SHORT_TICKS = 1000000000, LEN = 512, CALLS = 50, SLOW_EVERY = 32, SLOW_MS = 1 };

typedef struct memo_test {
    atomic_int calls;      /* body calls in the current loop */
    atomic_size_t longest; /* the longest part */
    /* Disjoint parts write these; read after the loop returns. */
    int ran[LEN];
    int by[LEN]; /* thread index + 1 */
    bool slow;   /* every SLOW_EVERY-th iteration sleeps SLOW_MS */
    size_t max_len;
    size_t first_end; /* where the part starting at 0 ended its first call */
    int fewest;       /* body calls of a loop after the first */
    int split_roots;  /* loops after the first not run as one leaf */
} memo_test_t;

static void body(void *ctx, size_t b, size_t e)
{
    memo_test_t *t = ctx;
    atomic_fetch_add(&t->calls, 1);
    if (b == 0 && t->first_end == 0)
        t->first_end = e; /* one part starts at 0: its first call */
    size_t len = e - b, seen = atomic_load(&t->longest);
    while (len > seen && !atomic_compare_exchange_weak(&t->longest, &seen, len)) {
    }
    for (size_t i = b; i < e; i++) {
        if (t->slow && i % SLOW_EVERY == 0)
            test_sleep_ms(SLOW_MS);
        t->ran[i]++;
        t->by[i] = spool_current_thread_index() + 1;
    }
}

static void reset(memo_test_t *t)
{
    atomic_store(&t->calls, 0);
    t->first_end = 0;
    for (int i = 0; i < LEN; i++)
        t->ran[i] = t->by[i] = 0;
}

static void check_once(memo_test_t *t)
{
    for (int i = 0; i < LEN; i++)
        if (t->ran[i] != 1)
            fail_msg("iteration %d ran %d times", i, t->ran[i]);
}

/* CALLS short loops in a row, from one worker. */
static void short_loops(void *arg)
{
    memo_test_t *t = arg;
    spool_for_opts_t opts = {.max_len = t->max_len};
    t->fewest = LEN;
    t->split_roots = 0;
    for (int k = 0; k < CALLS; k++) {
        reset(t);
        spool_for(0, LEN, &opts, body, t);
        check_once(t);
        int calls = atomic_load(&t->calls);
        if (k > 0 && calls < t->fewest)
            t->fewest = calls;
        if (k > 0 && t->first_end != LEN / 8)
            t->split_roots++;
    }
}

static memo_test_t T;

static spool_pool_t *make_pool(unsigned n)
{
    spool__test_set_loop_short_ticks(SHORT_TICKS);
    spool_config_t config = {.num_threads = n};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    return pool;
}

/* Run as one leaf, a loop's first call of its body is its first eighth
 * (the leaf timing its pace); split at the root, the part starting at 0 is
 * half the loop or less, and its first call a sixteenth or less.  (Run
 * whole, the leaf may still split on demand, where a sanitizer makes the
 * loop long.)  Every loop after the first runs as one leaf. */
static void test_short_loop_runs_whole(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(2);
    T.slow = false;
    T.max_len = 0;
    assert_int_equal(spool_pool_install(pool, short_loops, &T), 0);
    if (T.split_roots > 0)
        fail_msg("%d of the %d short loops after the first were split at the root",
                 T.split_roots, CALLS - 1);
    assert_int_equal(spool_pool_destroy(pool), 0);
    spool__test_set_loop_short_ticks(0);
}

/* max_len asks for parts of at most 8: the memo must not run the loop
 * whole. */
static void test_memo_keeps_max_len(void **state)
{
    (void)state;
    spool_pool_t *pool = make_pool(2);
    T.slow = false;
    T.max_len = 8;
    atomic_store(&T.longest, 0);
    assert_int_equal(spool_pool_install(pool, short_loops, &T), 0);
    assert_true(atomic_load(&T.longest) <= 8);
    assert_true(T.fewest >= LEN / 8);
    assert_int_equal(spool_pool_destroy(pool), 0);
    spool__test_set_loop_short_ticks(0);
}

/* The same loop, short CALLS times, then long (LEN / SLOW_EVERY iterations
 * of SLOW_MS): run
 * whole by the memo, its leaf must still share the slow iterations with
 * the other worker, asleep by then, which asks for nothing. */
static void short_then_long(void *arg)
{
    memo_test_t *t = arg;
    short_loops(t);
    /* The other worker, with nothing to do, falls asleep meanwhile. */
    test_sleep_ms(50);
    reset(t);
    t->slow = true;
    spool_for(0, LEN, NULL, body, t);
    t->slow = false;
}

static void test_memo_loop_turning_long_is_shared(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_MEMO_ROUNDS", 5);
    spool_pool_t *pool = make_pool(2);
    for (unsigned long r = 0; r < rounds; r++) {
        T.slow = false;
        T.max_len = 0;
        assert_int_equal(spool_pool_install(pool, short_then_long, &T), 0);
        check_once(&T);
        int seen = 0; /* bit k: thread k ran a slow iteration */
        for (int i = 0; i < LEN; i += SLOW_EVERY)
            seen |= 1 << (T.by[i] - 1);
        if (seen != 3)
            fail_msg("round %lu: the slow iterations ran on threads %#x only", r, seen);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
    spool__test_set_loop_short_ticks(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_loop_runs_whole),
        cmocka_unit_test(test_memo_keeps_max_len),
        cmocka_unit_test(test_memo_loop_turning_long_is_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
