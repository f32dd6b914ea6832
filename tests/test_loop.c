/* spool_for: oneTBB's parallel_for "flog" and step/offset tests, rayon's
 * check_lengths, ranges ending at SIZE_MAX, fixed and adaptive parts, short
 * ranges on the caller, nesting, bad input, idle CPU after a loop, coarse
 * and uneven leaves (spool_reduce: test_reduce.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "loop_modes.h"
#include "pool_idle.h"


/* ---- flog: every n < 500, every mode: each index once, nothing else ---- */

enum { FLOG_PAD = 64, FLOG_MAX = 500 };

typedef struct flog {
    atomic_uint hits[FLOG_PAD + FLOG_MAX + FLOG_PAD];
    size_t base; /* index i lives in hits[i - base] */
} flog_t;

static void flog_body(void *ctx, size_t begin, size_t end)
{
    flog_t *f = ctx;
    assert_true(begin < end);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add_explicit(&f->hits[i - f->base], 1, memory_order_relaxed);
}

typedef struct flog_run {
    flog_t flog;
    size_t first; /* the range starts at first */
} flog_run_t;

static void flog_all(void *arg)
{
    flog_run_t *r = arg;
    for (unsigned m = 0; m < NUM_MODES; m++) {
        for (size_t n = 0; n < FLOG_MAX; n++) {
            memset(r->flog.hits, 0, sizeof r->flog.hits);
            r->flog.base = r->first - FLOG_PAD;
            spool_for(r->first, r->first + n, &modes[m], flog_body, &r->flog);
            for (size_t k = 0; k < FLOG_PAD + FLOG_MAX + FLOG_PAD; k++) {
                size_t i = k + r->flog.base;
                unsigned want = i >= r->first && i < r->first + n ? 1 : 0;
                if (atomic_load(&r->flog.hits[k]) != want) {
                    fprintf(stderr, "mode %u n %zu: index %zu ran %u times\n", m, n, i,
                            atomic_load(&r->flog.hits[k]));
                    fail();
                }
            }
        }
    }
}

static void test_flog(void **state)
{
    (void)state;
    static flog_run_t run;
    run.first = 1000;
    flog_all(&run); /* outside any pool: the global pool */
    for (unsigned p = 0; p < NUM_POOL_SIZES; p++) {
        spool_pool_t *pool = test_pool(pool_sizes[p]);
        run.first = 1000;
        run_in(pool, flog_all, &run);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- step and offset: a stepped loop mapped onto a range --------------- */

typedef struct stepped {
    size_t first, step;
    atomic_uint *hits; /* by (index - first) / step */
} stepped_t;

static void stepped_body(void *ctx, size_t begin, size_t end)
{
    stepped_t *s = ctx;
    for (size_t k = begin; k < end; k++) {
        size_t i = s->first + k * s->step; /* the user's index */
        assert_int_equal((i - s->first) % s->step, 0);
        atomic_fetch_add_explicit(&s->hits[(i - s->first) / s->step], 1, memory_order_relaxed);
    }
}

static void test_step_and_offset(void **state)
{
    (void)state;
    static const size_t firsts[] = {0, 1, 7, 1000, SIZE_MAX - 3000};
    static const size_t steps[] = {1, 2, 3, 7};
    static atomic_uint hits[3000];
    spool_pool_t *pool = test_pool(3);
    for (unsigned f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
        for (unsigned s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            size_t last = firsts[f] + 2999;
            size_t count = (last - firsts[f] + steps[s] - 1) / steps[s]; /* [first, last) */
            memset(hits, 0, sizeof hits);
            stepped_t st = {firsts[f], steps[s], hits};
            spool_for(0, count, NULL, stepped_body, &st);
            for (size_t k = 0; k < 3000; k++)
                assert_int_equal(atomic_load(&hits[k]), k < count ? 1 : 0);
        }
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- ranges that end at SIZE_MAX ---------------------------------------- */

static void test_range_ending_at_size_max(void **state)
{
    (void)state;
    static flog_t f;
    for (unsigned m = 0; m < NUM_MODES; m++) {
        memset(f.hits, 0, sizeof f.hits);
        f.base = SIZE_MAX - FLOG_MAX - FLOG_PAD;
        spool_for(SIZE_MAX - FLOG_MAX, SIZE_MAX, &modes[m], flog_body, &f);
        for (size_t k = 0; k < FLOG_PAD + FLOG_MAX; k++)
            assert_int_equal(atomic_load(&f.hits[k]), k >= FLOG_PAD ? 1 : 0);
    }
}

/* ---- rayon's check_lengths ------------------------------------------------ */

enum { LEN_MAX = 4096 };

typedef struct parts {
    atomic_size_t len_at[LEN_MAX]; /* the length of the part starting there */
    atomic_uint starts[LEN_MAX];   /* parts starting there */
} parts_t;

static void record_part(void *ctx, size_t begin, size_t end)
{
    parts_t *p = ctx;
    atomic_store_explicit(&p->len_at[begin], end - begin, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->starts[begin], 1, memory_order_relaxed);
}

/* The parts cover [0, len) once each, each between lo and hi long. */
static void check_parts(parts_t *p, size_t len, size_t min_len, size_t max_len, bool fixed)
{
    size_t lo = min_len > 1 ? min_len : 1;
    if (lo > len)
        lo = len;
    size_t hi = max_len != 0 && !fixed ? max_len : SIZE_MAX;
    if (hi < 2 * lo - 1)
        hi = 2 * lo - 1;
    size_t i = 0;
    while (i < len) {
        assert_int_equal(atomic_load(&p->starts[i]), 1);
        size_t n = atomic_load(&p->len_at[i]);
        if (n < lo || n > hi) {
            fprintf(stderr, "len %zu min %zu max %zu: part [%zu, %zu) outside [%zu, %zu]\n", len,
                    min_len, max_len, i, i + n, lo, hi);
            fail();
        }
        for (size_t k = i + 1; k < i + n && k < len; k++)
            assert_int_equal(atomic_load(&p->starts[k]), 0);
        i += n;
    }
    assert_int_equal(i, len);
}

static void check_lengths_all(void *arg)
{
    parts_t *p = arg;
    static const size_t mins[] = {0, 1, 2, 3, 5, 10, 100};
    static const size_t maxs[] = {0, 1, 2, 3, 5, 10, 100, 1000};
    static const size_t lens[] = {0, 1, 2, 3, 7, 10, 99, 100, 101, 1000, 1023, 4096};
    for (unsigned a = 0; a < sizeof mins / sizeof mins[0]; a++)
        for (unsigned b = 0; b < sizeof maxs / sizeof maxs[0]; b++)
            for (unsigned c = 0; c < sizeof lens / sizeof lens[0]; c++)
                for (unsigned fixed = 0; fixed < 2; fixed++) {
                    memset(p, 0, sizeof *p);
                    spool_for_opts_t o = {mins[a], maxs[b], fixed ? SPOOL_FOR_FIXED : 0};
                    spool_for(0, lens[c], &o, record_part, p);
                    check_parts(p, lens[c], mins[a], maxs[b], fixed);
                }
}

static void test_check_lengths(void **state)
{
    (void)state;
    static parts_t parts;
    check_lengths_all(&parts);
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        run_in(pool, check_lengths_all, &parts);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* SPOOL_FOR_FIXED makes the same parts at every pool size. */
static void fixed_parts(void *arg)
{
    spool_for_opts_t o = {5, 0, SPOOL_FOR_FIXED};
    spool_for(0, 3001, &o, record_part, arg);
}

static void test_fixed_parts_do_not_depend_on_threads(void **state)
{
    (void)state;
    static parts_t first, again;
    fixed_parts(&first);
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        for (int r = 0; r < 10; r++) {
            memset(&again, 0, sizeof again);
            run_in(pool, fixed_parts, &again);
            assert_memory_equal(&first, &again, sizeof first);
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* Adaptive splitting makes at least one part per thread (rayon's budget
 * starts at the pool size) and, without max_len, not one per index. */
static void count_parts(void *ctx, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    atomic_fetch_add((atomic_uint *)ctx, 1);
}

static void adaptive_parts(void *arg)
{
    spool_for(0, 1u << 20, NULL, count_parts, arg);
}

static void test_adaptive_part_count(void **state)
{
    (void)state;
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        atomic_uint n = 0;
        run_in(pool, adaptive_parts, &n);
        assert_true(atomic_load(&n) >= pool_sizes[s]);
        assert_true(atomic_load(&n) < 4096);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- short ranges run on the caller; nesting ------------------------------ */

typedef struct caller {
    pthread_t self;
    atomic_int calls, on_caller;
} caller_t;

static void note_caller(void *ctx, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    caller_t *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    if (pthread_equal(pthread_self(), c->self) && spool_current_thread_index() == -1)
        atomic_fetch_add(&c->on_caller, 1);
}

static void test_short_range_runs_on_caller(void **state)
{
    (void)state;
    caller_t c = {.self = pthread_self()};
    spool_for(5, 6, NULL, note_caller, &c);                  /* 1 < 2 * 1 */
    spool_for_opts_t o = {100, 0, 0};
    spool_for(0, 199, &o, note_caller, &c);                  /* 199 < 2 * 100 */
    spool_for_opts_t f = {100, 0, SPOOL_FOR_FIXED};
    spool_for(0, 150, &f, note_caller, &c);
    assert_int_equal(atomic_load(&c.calls), 3);
    assert_int_equal(atomic_load(&c.on_caller), 3);
    double s = -1.0;
    spool_reduce(0, 1, NULL, &sum_reducer, NULL, &s);        /* reduce too */
    assert_true(s == 1.0);
    s = -1.0;
    spool_reduce(3, 3, NULL, &sum_reducer, NULL, &s);        /* empty: identity */
    assert_true(s == 0.0);
}

enum { NEST = 24 };

typedef struct nest {
    atomic_uint cells[NEST][NEST][NEST];
} nest_t;

typedef struct nest_at {
    nest_t *n;
    size_t i, j;
} nest_at_t;

static void nest_k(void *ctx, size_t begin, size_t end)
{
    nest_at_t *at = ctx;
    for (size_t k = begin; k < end; k++)
        atomic_fetch_add(&at->n->cells[at->i][at->j][k], 1);
}

static void nest_j(void *ctx, size_t begin, size_t end)
{
    nest_at_t *at = ctx;
    for (size_t j = begin; j < end; j++) {
        nest_at_t inner = {at->n, at->i, j};
        spool_for(0, NEST, NULL, nest_k, &inner);
    }
}

typedef struct nest_half {
    nest_at_t at;
    size_t j_begin, j_end;
} nest_half_t;

static void nest_spawned(spool_scope_t *s, void *arg)
{
    (void)s;
    nest_half_t *h = arg;
    spool_for_opts_t o = {1, 2, 0};
    spool_for(h->j_begin, h->j_end, &o, nest_j, &h->at);
}

static void nest_scope(spool_scope_t *s, void *arg)
{
    nest_half_t *halves = arg;
    for (int h = 0; h < 2; h++)
        assert_int_equal(spool_scope_spawn(s, nest_spawned, &halves[h]), 0);
}

/* Outer loop body: a scope per index, spawning loops of loops. */
static void nest_i(void *ctx, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        nest_half_t halves[2] = {{{ctx, i, 0}, 0, NEST / 2}, {{ctx, i, 0}, NEST / 2, NEST}};
        if (i % 2)
            spool_scope(nest_scope, halves);
        else
            spool_scope_fifo(nest_scope, halves);
    }
}

static void nest_root(void *arg)
{
    spool_for(0, NEST, NULL, nest_i, arg);
}

static void test_nested_loops_in_scopes(void **state)
{
    (void)state;
    static nest_t n;
    for (unsigned s = 0; s <= NUM_POOL_SIZES; s++) {
        memset(&n, 0, sizeof n);
        spool_pool_t *pool = s < NUM_POOL_SIZES ? test_pool(pool_sizes[s]) : NULL;
        run_in(pool, nest_root, &n); /* NULL: from outside, in the global pool */
        for (size_t i = 0; i < NEST; i++)
            for (size_t j = 0; j < NEST; j++)
                for (size_t k = 0; k < NEST; k++)
                    assert_int_equal(atomic_load(&n.cells[i][j][k]), 1);
        if (pool != NULL)
            assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- bad input ------------------------------------------------------------ */

static void for_null_body(void)
{
    spool_for(0, 10, NULL, NULL, NULL);
}
static void for_null_body_empty_range(void)
{
    spool_for(5, 5, NULL, NULL, NULL);
}
static void reduce_null_reducer(void)
{
    double r;
    spool_reduce(0, 10, NULL, NULL, NULL, &r);
}
static void reduce_null_result(void)
{
    spool_reduce(0, 10, NULL, &sum_reducer, NULL, NULL);
}
static void reduce_null_fold(void)
{
    spool_reducer_t r = sum_reducer;
    r.fold = NULL;
    double d;
    spool_reduce(0, 10, NULL, &r, NULL, &d);
}
static void reduce_size_zero(void)
{
    spool_reducer_t r = sum_reducer;
    r.size = 0;
    double d;
    spool_reduce(0, 10, NULL, &r, NULL, &d);
}
static void reduce_size_too_big(void)
{
    spool_reducer_t r = sum_reducer;
    r.size = SPOOL_REDUCE_MAX_SIZE + 1;
    double d[64];
    spool_reduce(0, 10, NULL, &r, NULL, d);
}

static void nop_body(void *ctx, size_t begin, size_t end)
{
    (void)ctx, (void)begin, (void)end;
}

static void for_unknown_flags(void)
{
    spool_for_opts_t o = {0, 0, SPOOL_FOR_FIXED | 4u};
    spool_for(0, 10, &o, nop_body, NULL);
}

static size_t find_none(void *ctx, size_t begin, size_t end)
{
    (void)ctx, (void)begin;
    return end;
}

static void find_unknown_flags(void)
{
    spool_for_opts_t o = {0, 0, 2u};
    (void)spool_find_first(0, 10, &o, find_none, NULL);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(for_unknown_flags, "spool_for: opts->flags has bits"), 0);
    assert_int_equal(test_expect_abort(find_unknown_flags, "spool_find_first: opts->flags"), 0);
    assert_int_equal(test_expect_abort(for_null_body, "spool_for"), 0);
    assert_int_equal(test_expect_abort(reduce_null_reducer, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_null_result, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_null_fold, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_size_zero, "spool_reduce"), 0);
    assert_int_equal(test_expect_abort(reduce_size_too_big, "spool_reduce"), 0);
    /* An empty range with a NULL body is still a programming error. */
    assert_int_equal(test_expect_abort(for_null_body_empty_range, "NULL body"), 0);
}

/* ---- the cost of a range: the threads', not the range's length ------------ */

typedef struct tally {
    atomic_ulong calls, shortest;
    atomic_ullong covered;
} tally_t;

static void tally_part(void *ctx, size_t begin, size_t end)
{
    tally_t *t = ctx;
    atomic_fetch_add(&t->calls, 1);
    atomic_fetch_add(&t->covered, (unsigned long long)(end - begin));
    unsigned long len = (unsigned long)(end - begin), s = atomic_load(&t->shortest);
    while (len < s && !atomic_compare_exchange_weak(&t->shortest, &s, len))
        ;
}

static void whole_range(void *arg)
{
    spool_for(0, SIZE_MAX, NULL, tally_part, arg);
}

static void fixed_range(void *arg)
{
    spool_for_opts_t o = {0, 0, SPOOL_FOR_FIXED};
    spool_for(0, 1u << 20, &o, tally_part, arg);
}

/* spool_for(0, SIZE_MAX) with a body that ignores its range's length
 * finishes in a number of calls that does not grow with the range; and
 * SPOOL_FOR_FIXED without min_len makes parts of len / 1024, not one call
 * per index. */
static void test_range_cost(void **state)
{
    (void)state;
    for (unsigned s = 0; s < NUM_POOL_SIZES; s++) {
        spool_pool_t *pool = test_pool(pool_sizes[s]);
        tally_t t = {0};
        atomic_init(&t.shortest, ULONG_MAX);
        run_in(pool, whole_range, &t);
        assert_true(atomic_load(&t.covered) == (unsigned long long)SIZE_MAX);
        assert_true(atomic_load(&t.calls) < 100000);
        tally_t f = {0};
        atomic_init(&f.shortest, ULONG_MAX);
        run_in(pool, fixed_range, &f);
        assert_true(atomic_load(&f.covered) == 1u << 20);
        assert_true(atomic_load(&f.calls) <= 1024);
        assert_true(atomic_load(&f.shortest) >= (1u << 20) / 1024);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

/* ---- idle after a loop ------------------------------------------------------ */

static void busy_body(void *ctx, size_t begin, size_t end)
{
    double *out = ctx;
    for (size_t i = begin; i < end; i++)
        out[i] = out[i] * 0.5 + 1.0;
}

enum { IDLE_LEN = 1 << 16, IDLE_ROUNDS = 200 };

static void loops_in_pool(void *arg)
{
    for (int r = 0; r < IDLE_ROUNDS; r++)
        spool_for(0, IDLE_LEN, NULL, busy_body, arg);
}

/* After loops have kept every worker busy, the pool goes back to sleep. */
static void test_idle_cpu_after_loop(void **state)
{
    (void)state;
    static double data[IDLE_LEN];
    spool_pool_t *pool = test_pool(4);
    run_in(pool, loops_in_pool, data);
    double want = 0.0;
    for (int r = 0; r < IDLE_ROUNDS; r++)
        want = want * 0.5 + 1.0;
    for (size_t i = 0; i < IDLE_LEN; i++)
        assert_true(data[i] == want);
    test_sleep_ms(100); /* the workers search a little, then sleep */
    double cpu0 = test_cpu_seconds();
    test_sleep_ms(500);
    double used = test_cpu_seconds() - cpu0;
    if (used >= 0.1)
        fprintf(stderr, "idle pool used %.3f s of CPU in 0.5 s\n", used);
    assert_true(used < 0.1);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- coarse leaves ---------------------------------------------------------- */

/* A loop's halves forked on the way down to a leaf are private (src/deque/deque.md);
 * before a leaf runs, they must be published if workers are idle (rule 3),
 * else they stay hidden as long as the leaf runs.  Each leaf here waits
 * until all have started (or a deadline), so the loop passes only if every
 * worker runs one at once.  Rounds: SPOOL_TEST_COARSE_ROUNDS. */
enum { COARSE_THREADS = 4, COARSE_DEADLINE_MS = 5000 };
typedef struct coarse_test {
    atomic_int started, all_met;
} coarse_test_t;

static void coarse_leaf(void *ctx, size_t begin, size_t end)
{
    coarse_test_t *t = ctx;
    for (size_t i = begin; i < end; i++)
        if (test_meet(&t->started, COARSE_THREADS, COARSE_DEADLINE_MS))
            atomic_fetch_add(&t->all_met, 1);
}

static void coarse_loop(void *arg)
{
    spool_for_opts_t opts = {.max_len = 1};
    spool_for(0, COARSE_THREADS, &opts, coarse_leaf, arg);
}

static void test_coarse_leaves_run_side_by_side(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_COARSE_ROUNDS", 20);
    spool_config_t config = {.num_threads = COARSE_THREADS};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (unsigned long r = 0; r < rounds; r++) {
        coarse_test_t t;
        atomic_init(&t.started, 0);
        atomic_init(&t.all_met, 0);
        if (r % 2 == 1)
            test_sleep_ms(20); /* the workers sleep first */
        /* Idle when the loop starts: see test_scope.c's coarse spawns. */
        assert_true(test_wait_pool_idle(pool, COARSE_DEADLINE_MS));
        assert_int_equal(spool_pool_install(pool, coarse_loop, &t), 0);
        if (atomic_load(&t.all_met) != COARSE_THREADS)
            fail_msg("round %lu: %d of %d leaves saw all %d start", r, atomic_load(&t.all_met),
                     COARSE_THREADS, COARSE_THREADS);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- demand-driven splitting ------------------------------------------------
 * On two workers a default loop's first leaf holds all the slow iterations
 * (UNEVEN_SLOW of UNEVEN_LEN, UNEVEN_MS each).  The other worker runs the
 * fast leaves and goes idle; the slow leaf's worker then sees the demand
 * between two of its pieces and splits its rest, so the slow iterations
 * run on both workers.  Rounds: SPOOL_TEST_UNEVEN_ROUNDS. */
enum { UNEVEN_LEN = 64, UNEVEN_SLOW = 16, UNEVEN_MS = 3 };
typedef struct uneven_test {
    atomic_int ran[UNEVEN_LEN];
    atomic_int by[UNEVEN_LEN]; /* thread index + 1 */
} uneven_test_t;

static void uneven_body(void *ctx, size_t begin, size_t end)
{
    uneven_test_t *t = ctx;
    for (size_t i = begin; i < end; i++) {
        if (i < UNEVEN_SLOW)
            test_sleep_ms(UNEVEN_MS);
        atomic_fetch_add(&t->ran[i], 1);
        atomic_store(&t->by[i], spool_current_thread_index() + 1);
    }
}

static void uneven_loop(void *arg)
{
    spool_for(0, UNEVEN_LEN, NULL, uneven_body, arg);
}

static void test_uneven_leaf_is_split_on_demand(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_UNEVEN_ROUNDS", 5);
    spool_pool_t *pool = test_pool(2);
    for (unsigned long r = 0; r < rounds; r++) {
        uneven_test_t t;
        for (int i = 0; i < UNEVEN_LEN; i++) {
            atomic_init(&t.ran[i], 0);
            atomic_init(&t.by[i], 0);
        }
        run_in(pool, uneven_loop, &t);
        int seen = 0; /* bit k: thread k ran a slow iteration */
        for (int i = 0; i < UNEVEN_LEN; i++) {
            assert_int_equal(atomic_load(&t.ran[i]), 1);
            if (i < UNEVEN_SLOW)
                seen |= 1 << (atomic_load(&t.by[i]) - 1);
        }
        if (seen != 3)
            fail_msg("round %lu: the slow iterations ran on threads %#x only", r, seen);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flog),
        cmocka_unit_test(test_step_and_offset),
        cmocka_unit_test(test_range_ending_at_size_max),
        cmocka_unit_test(test_check_lengths),
        cmocka_unit_test(test_fixed_parts_do_not_depend_on_threads),
        cmocka_unit_test(test_adaptive_part_count),
        cmocka_unit_test(test_short_range_runs_on_caller),
        cmocka_unit_test(test_nested_loops_in_scopes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_range_cost),
        cmocka_unit_test(test_idle_cpu_after_loop),
        cmocka_unit_test(test_coarse_leaves_run_side_by_side),
        cmocka_unit_test(test_uneven_leaf_is_split_on_demand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
