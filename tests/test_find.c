/*
 * Early-exit search (spool_find_first, spool_find_any): against a
 * sequential scan on random inputs and every kind of split option, in pools
 * of 1, 2, 3 and 7 threads and from outside; matches at the ends, none,
 * ranges that end at SIZE_MAX; find_any's answer matches; the early exit
 * measured in indices looked at; bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

/* Index i matches if it is one of the case's planted matches. */
typedef struct needles {
    size_t n;
    size_t at[8];
    atomic_size_t looked; /* indices the find calls scanned */
    atomic_long calls;
    size_t lo, hi;        /* every call's length must be in [lo, hi] (when checked) */
    atomic_int bad_length;
} needles_t;

static bool matches(const needles_t *nd, size_t i)
{
    for (size_t k = 0; k < nd->n; k++)
        if (nd->at[k] == i)
            return true;
    return false;
}

static size_t find_needle(void *ctx, size_t b, size_t e)
{
    needles_t *nd = ctx;
    atomic_fetch_add(&nd->calls, 1);
    if (e - b < nd->lo || e - b > nd->hi)
        atomic_store(&nd->bad_length, 1);
    size_t i = b;
    while (i < e && !matches(nd, i))
        i++;
    atomic_fetch_add(&nd->looked, (i < e ? i + 1 : e) - b);
    return i;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct search_case {
    size_t begin, end;
    spool_for_opts_t opts;
    needles_t nd;
    size_t first, any;
} search_case_t;

static void run_case(void *arg)
{
    search_case_t *c = arg;
    c->first = spool_find_first(c->begin, c->end, &c->opts, find_needle, &c->nd);
    c->any = spool_find_any(c->begin, c->end, &c->opts, find_needle, &c->nd);
}

static void check_cases(spool_pool_t *pool, unsigned long cases, uint64_t seed)
{
    uint64_t s = seed | 1;
    for (unsigned long k = 0; k < cases; k++) {
        search_case_t c;
        memset(&c, 0, sizeof c);
        size_t len = 1 + next(&s) % 20000;
        c.begin = k % 10 == 9 ? SIZE_MAX - len : next(&s) % 1000000;
        c.end = c.begin + len;
        /* min_len, max_len and FIXED in every combination, at random. */
        c.opts.min_len = next(&s) % 3 == 0 ? 1 + next(&s) % 300 : 0;
        c.opts.max_len = next(&s) % 3 == 0 ? 1 + next(&s) % 2000 : 0;
        c.opts.flags = next(&s) % 2 ? SPOOL_FOR_FIXED : 0;
        size_t lo = c.opts.min_len > 1 ? c.opts.min_len : 1;
        if (lo > len)
            lo = len;
        c.nd.lo = lo;
        c.nd.hi = SIZE_MAX; /* pieces and parts: at least lo (max_len checked below) */
        switch (k % 5) {
        case 0:
            c.nd.n = 0; /* no match */
            break;
        case 1:
            c.nd.n = 1;
            c.nd.at[0] = c.begin;
            break;
        case 2:
            c.nd.n = 1;
            c.nd.at[0] = c.end - 1;
            break;
        default:
            c.nd.n = 1 + next(&s) % 8;
            for (size_t i = 0; i < c.nd.n; i++)
                c.nd.at[i] = c.begin + next(&s) % len;
            break;
        }
        size_t expect = c.end;
        for (size_t i = 0; i < c.nd.n; i++)
            if (c.nd.at[i] < expect)
                expect = c.nd.at[i];
        if (pool != NULL)
            assert_int_equal(spool_pool_install(pool, run_case, &c), 0);
        else
            run_case(&c);
        assert_int_equal(c.first, expect);
        if (expect == c.end)
            assert_int_equal(c.any, c.end);
        else
            assert_true(c.any < c.end && matches(&c.nd, c.any));
        assert_int_equal(atomic_load(&c.nd.bad_length), 0);
    }
}

static void test_against_a_scan(void **state)
{
    (void)state;
    unsigned long cases = test_iters("SPOOL_TEST_FIND_CASES", 1000);
    const unsigned sizes[] = {1, 2, 3, 7};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        spool_config_t config = {.num_threads = sizes[i]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        check_cases(pool, cases, 0x1234 + i);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
    check_cases(NULL, cases, 0x9876); /* from outside: the global pool */
}

/* max_len: no call longer than it (min_len permitting). */
static void test_call_lengths(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    search_case_t c;
    memset(&c, 0, sizeof c);
    c.begin = 0;
    c.end = 100037; /* not a multiple of the pieces' length */
    c.opts.min_len = 100;
    c.opts.max_len = 500;
    c.nd.lo = 100;
    c.nd.hi = 500; /* spool_for's parts are at most max(max_len, 2 lo - 1) */
    c.nd.n = 0;
    assert_int_equal(spool_pool_install(pool, run_case, &c), 0);
    assert_int_equal(c.first, c.end);
    assert_int_equal(atomic_load(&c.nd.bad_length), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* A match in the first 1% of the range: the searches look at less than 10%
 * of it at 2 threads (every part stops within a piece of the match's
 * discovery).  A searcher preempted between its match and its publication
 * lets the other scan on for a time slice, so each round has up to 3
 * tries; a search without the early exit looks at all of it in each. */
static void test_early_exit(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    const size_t n = 4000000;
    for (int round = 0; round < 5; round++) {
        size_t looked = SIZE_MAX;
        for (int try = 0; try < 3 && looked >= 2 * (n / 10); try++) {
            search_case_t c;
            memset(&c, 0, sizeof c);
            c.begin = 0;
            c.end = n;
            c.nd.lo = 1;
            c.nd.hi = SIZE_MAX;
            c.nd.n = 1;
            c.nd.at[0] = n / 100 - 1 - (size_t)round * 1000;
            assert_int_equal(spool_pool_install(pool, run_case, &c), 0);
            assert_int_equal(c.first, c.nd.at[0]);
            assert_int_equal(c.any, c.nd.at[0]);
            looked = atomic_load(&c.nd.looked); /* both searches */
            print_message("match at %zu: the two searches looked at %zu of 2 x %zu\n",
                          c.nd.at[0], looked, n);
        }
        assert_true(looked < 2 * (n / 10));
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static size_t never_called(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    (void)b;
    fail_msg("find called on an empty range");
    return e;
}

static size_t out_of_bounds(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    (void)b;
    return e + 1;
}

static void find_null(void)
{
    spool_find_first(0, 10, NULL, NULL, NULL);
}

static void find_any_null(void)
{
    spool_find_any(0, 10, NULL, NULL, NULL);
}

static void find_bad_return(void)
{
    spool_find_first(0, 10, NULL, out_of_bounds, NULL);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(spool_find_first(5, 5, NULL, never_called, NULL), 5);
    assert_int_equal(spool_find_any(9, 3, NULL, never_called, NULL), 3);
    assert_int_equal(test_expect_abort(find_null, "spool_find_first"), 0);
    assert_int_equal(test_expect_abort(find_any_null, "spool_find_any"), 0);
    assert_int_equal(test_expect_abort(find_bad_return, "spool_find_first"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_a_scan),
        cmocka_unit_test(test_call_lengths),
        cmocka_unit_test(test_early_exit),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
