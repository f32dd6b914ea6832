/* libspool-omp, worksharing loops and sections: every schedule (static,
 * dynamic, guided, runtime, auto, nonmonotonic) over long and unsigned
 * long long loops up and down, empty and near the types' ends; collapse,
 * nowait (more loops ahead than the ring has slots), lastprivate,
 * ordered, doacross, sections.  Each iteration must run exactly once. */
#include <limits.h>

#include "omp_test.h"

enum { N = 10007 };

static atomic_int hits[N];

static void clear_hits(void)
{
    for (int i = 0; i < N; i++)
        atomic_store(&hits[i], 0);
}

/* Every index in [0, n) hit once, none beyond. */
static void assert_each_once(int n)
{
    for (int i = 0; i < N; i++)
        if (atomic_load(&hits[i]) != (i < n ? 1 : 0)) {
            fprintf(stderr, "iteration %d ran %d times\n", i, atomic_load(&hits[i]));
            fail();
        }
}

static const struct {
    omp_sched_t kind;
    int chunk;
} runtime_schedules[] = {
    {omp_sched_static, 0},  {omp_sched_static, 1},  {omp_sched_static, 7},
    {omp_sched_dynamic, 1}, {omp_sched_dynamic, 13}, {omp_sched_guided, 1},
    {omp_sched_guided, 5},  {omp_sched_auto, 0},
    {(omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 3},
};

static void test_runtime_schedules(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof runtime_schedules / sizeof runtime_schedules[0]; k++) {
        omp_set_schedule(runtime_schedules[k].kind, runtime_schedules[k].chunk);
        omp_sched_t got;
        int chunk;
        omp_get_schedule(&got, &chunk);
        assert_int_equal(got, runtime_schedules[k].kind);
        for (int n = 0; n < 40; n += 3) {
            clear_hits();
#pragma omp parallel
#pragma omp for schedule(runtime)
            for (int i = 0; i < n; i++)
                atomic_fetch_add(&hits[i], 1);
            assert_each_once(n);
        }
        clear_hits();
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < N; i++)
            atomic_fetch_add(&hits[i], 1);
        assert_each_once(N);
    }
    omp_set_schedule(omp_sched_dynamic, 1);
}

static void test_schedule_clauses(void **state)
{
    (void)state;
    clear_hits();
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < 1000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(static, 3) nowait
        for (int i = 1000; i < 2000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(dynamic) nowait
        for (int i = 2000; i < 3000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(dynamic, 17) nowait
        for (int i = 3000; i < 4000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(guided) nowait
        for (int i = 4000; i < 5000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(guided, 9) nowait
        for (int i = 5000; i < 6000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(auto) nowait
        for (int i = 6000; i < 7000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(monotonic : dynamic, 2) nowait
        for (int i = 7000; i < 8000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(nonmonotonic : guided) nowait
        for (int i = 8000; i < 9000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(monotonic : runtime) nowait
        for (int i = 9000; i < 9500; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp for schedule(nonmonotonic : runtime)
        for (int i = 9500; i < N; i++)
            atomic_fetch_add(&hits[i], 1);
    }
    assert_each_once(N);
}

static void test_combined_parallel_for(void **state)
{
    (void)state;
    clear_hits();
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 2000; i++)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 2000; i < 4000; i++)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(guided)
    for (int i = 4000; i < 6000; i++)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(runtime)
    for (int i = 6000; i < 8000; i++)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(nonmonotonic : dynamic)
    for (int i = 8000; i < N; i++)
        atomic_fetch_add(&hits[i], 1);
    assert_each_once(N);
}

/* Loops whose index counts down, steps by more than one, or sits near the
 * ends of long and unsigned long long; a chunk is handed back as the
 * loop's own values. */
static void test_bounds(void **state)
{
    (void)state;
    clear_hits();
#pragma omp parallel for schedule(dynamic, 5)
    for (long i = 999; i >= 0; i--)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(guided, 2)
    for (long i = 1000; i < 4000; i += 3)
        atomic_fetch_add(&hits[1000 + (i - 1000) / 3], 1);
    assert_each_once(2000);

    clear_hits();
    const long top = LONG_MAX - 5;
#pragma omp parallel for schedule(dynamic, 2)
    for (long i = top - 1000; i < LONG_MAX; i++)
        atomic_fetch_add(&hits[i - (top - 1000)], 1);
    assert_each_once(1005);

    clear_hits();
#pragma omp parallel for schedule(runtime)
    for (long i = LONG_MIN; i < LONG_MIN + 700; i++)
        atomic_fetch_add(&hits[i - LONG_MIN], 1);
    assert_each_once(700);

    clear_hits();
    const unsigned long long ubase = ULLONG_MAX - 3000;
#pragma omp parallel for schedule(guided)
    for (unsigned long long i = ubase; i < ULLONG_MAX; i += 2)
        atomic_fetch_add(&hits[(i - ubase) / 2], 1);
    assert_each_once(1500);

    clear_hits();
#pragma omp parallel for schedule(dynamic, 3)
    for (unsigned long long i = 3000; i > 0; i--)
        atomic_fetch_add(&hits[i - 1], 1);
    assert_each_once(3000);

    clear_hits();
#pragma omp parallel for schedule(static, 4)
    for (unsigned long long i = 5; i < 5; i++)
        atomic_fetch_add(&hits[i], 1);
#pragma omp parallel for schedule(dynamic)
    for (long i = 10; i > 10; i--)
        atomic_fetch_add(&hits[i], 1);
    assert_each_once(0);

    clear_hits();
#pragma omp parallel for schedule(runtime)
    for (long i = 0; i <= 999; i += 1000)
        atomic_fetch_add(&hits[i], 1);
    assert_each_once(1);
}

static void test_collapse_and_lastprivate(void **state)
{
    (void)state;
    clear_hits();
    int last_i = -1, last_j = -1;
#pragma omp parallel for collapse(2) schedule(dynamic, 7) lastprivate(last_i, last_j)
    for (int i = 0; i < 50; i++)
        for (int j = 0; j < 40; j++) {
            atomic_fetch_add(&hits[i * 40 + j], 1);
            last_i = i;
            last_j = j;
        }
    assert_each_once(2000);
    assert_int_equal(last_i, 49);
    assert_int_equal(last_j, 39);

    clear_hits();
    unsigned long long lu = 0;
#pragma omp parallel for collapse(3) schedule(guided) lastprivate(lu)
    for (unsigned long long a = 0; a < 10; a++)
        for (int b = 0; b < 10; b++)
            for (int c = 0; c < 10; c++) {
                atomic_fetch_add(&hits[a * 100 + (unsigned)b * 10 + (unsigned)c], 1);
                lu = a * 100 + (unsigned)b * 10 + (unsigned)c;
            }
    assert_each_once(1000);
    assert_true(lu == 999);

    int cond = -1;
#pragma omp parallel for lastprivate(conditional : cond) schedule(dynamic, 3)
    for (int i = 0; i < 1000; i++)
        if (i % 97 == 5)
            cond = i;
    assert_int_equal(cond, 975);
}

/* More nowait loops in a row than the team's ring of work shares holds:
 * threads far ahead wait for the slowest to leave a slot. */
static void test_nowait_ring(void **state)
{
    (void)state;
    clear_hits();
#pragma omp parallel
    {
        for (int k = 0; k < 40; k++) {
            if (omp_get_thread_num() == 1 && k % 10 == 0)
                test_busy_ns(200000); /* one thread lags */
#pragma omp for schedule(dynamic, 3) nowait
            for (int i = k * 100; i < (k + 1) * 100; i++)
                atomic_fetch_add(&hits[i], 1);
        }
    }
    assert_each_once(4000);
}

/* Two static loops of the same count: the same iterations on the same
 * threads (OpenMP's promise for nowait chains), gcc's inline static and
 * the runtime static alike. */
static void test_static_same_threads(void **state)
{
    (void)state;
    static int owner[1000];
    atomic_int bad = 0;
    omp_set_schedule(omp_sched_static, 0);
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < 1000; i++)
            owner[i] = omp_get_thread_num();
#pragma omp for schedule(static) nowait
        for (int i = 0; i < 1000; i++)
            if (owner[i] != omp_get_thread_num())
                atomic_fetch_add(&bad, 1);
#pragma omp for schedule(runtime) nowait
        for (int i = 0; i < 1000; i++)
            if (owner[i] != omp_get_thread_num())
                atomic_fetch_add(&bad, 1);
    }
    omp_set_schedule(omp_sched_dynamic, 1);
    assert_int_equal(atomic_load(&bad), 0);
}

static void test_ordered(void **state)
{
    (void)state;
    static int order[2000];
    for (int pass = 0; pass < 4; pass++) {
        int next = 0;
        atomic_int bad = 0;
#pragma omp parallel
        {
            if (pass == 0) {
#pragma omp for ordered schedule(dynamic, 3)
                for (int i = 0; i < 2000; i++) {
                    if (i % 7 == 0)
                        sched_yield();
#pragma omp ordered
                    order[next++] = i;
                }
            } else if (pass == 1) {
#pragma omp for ordered schedule(static, 5)
                for (int i = 0; i < 2000; i++) {
#pragma omp ordered
                    order[next++] = i;
                }
            } else if (pass == 2) {
#pragma omp for ordered schedule(guided)
                for (int i = 0; i < 2000; i++) {
#pragma omp ordered
                    order[next++] = i;
                }
            } else {
#pragma omp for ordered schedule(runtime)
                for (unsigned long long i = 2000; i > 0; i--) {
#pragma omp ordered
                    order[next++] = (int)(2000 - i);
                }
            }
        }
        for (int i = 0; i < 2000; i++)
            if (order[i] != i)
                atomic_fetch_add(&bad, 1);
        assert_int_equal(next, 2000);
        assert_int_equal(atomic_load(&bad), 0);
    }
}

/* ordered(2) with depend(sink) and depend(source): a wavefront, each
 * cell after its upper and left neighbours. */
static void test_doacross(void **state)
{
    (void)state;
    enum { R = 60, C = 50 };
    static atomic_int done[R][C];
    atomic_int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            atomic_store(&done[i][j], 0);
#pragma omp parallel for ordered(2) schedule(dynamic)
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            if ((i > 0 && !atomic_load(&done[i - 1][j])) || (j > 0 && !atomic_load(&done[i][j - 1])))
                atomic_fetch_add(&bad, 1);
            /* Even rows are slow: without the wait an odd row overtakes. */
            if (i % 2 == 0)
                test_busy_ns(3000);
            atomic_store(&done[i][j], 1);
#pragma omp ordered depend(source)
        }
    assert_int_equal(atomic_load(&bad), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_int_equal(atomic_load(&done[i][j]), 1);
}

/* A doacross loop of many dimensions (20, collapse(2): 19 in the
 * doacross space, 17 of them of one iteration), as GCC's doacross tests'
 * 60-dimension loops: each (i, j) after (i - 1, j) and (i, j - 1). */
static void test_doacross_many_dims(void **state)
{
    (void)state;
    enum { R = 12, C = 10 };
    static atomic_int done[R][C];
    atomic_int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            atomic_store(&done[i][j], 0);
    int a, b, c, d, e, f, g, h, k, l, m, n, o, p, q, r, t;
#define ONE(v) for (v = 0; v < 1; v++)
#pragma omp parallel for collapse(2) ordered(20) schedule(dynamic, 3)
    for (int x = 0; x < 1; x++)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++)
                ONE(a) ONE(b) ONE(c) ONE(d) ONE(e) ONE(f) ONE(g) ONE(h) ONE(k) ONE(l) ONE(m)
                ONE(n) ONE(o) ONE(p) ONE(q) ONE(r) ONE(t) {
#pragma omp ordered depend(sink : x, i - 1, j, a, b, c, d, e, f, g, h, k, l, m, n, o, p, q, r, t) \
    depend(sink : x, i, j - 1, a, b, c, d, e, f, g, h, k, l, m, n, o, p, q, r, t)
                    if ((i > 0 && !atomic_load(&done[i - 1][j])) ||
                        (j > 0 && !atomic_load(&done[i][j - 1])))
                        atomic_fetch_add(&bad, 1);
                    if (i % 2 == 0)
                        test_busy_ns(3000);
                    atomic_store(&done[i][j], 1);
#pragma omp ordered depend(source)
                }
#undef ONE
    assert_int_equal(atomic_load(&bad), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_int_equal(atomic_load(&done[i][j]), 1);
}

static void test_sections(void **state)
{
    (void)state;
    for (int r = 0; r < 100; r++) {
        atomic_int s[5] = {0};
        int last = -1;
#pragma omp parallel
        {
#pragma omp sections lastprivate(last)
            {
#pragma omp section
                {
                    atomic_fetch_add(&s[0], 1);
                    last = 0;
                }
#pragma omp section
                {
                    atomic_fetch_add(&s[1], 1);
                    last = 1;
                }
#pragma omp section
                {
                    atomic_fetch_add(&s[2], 1);
                    last = 2;
                }
            }
#pragma omp sections nowait
            {
#pragma omp section
                atomic_fetch_add(&s[3], 1);
#pragma omp section
                atomic_fetch_add(&s[4], 1);
            }
        }
        for (int i = 0; i < 5; i++)
            assert_int_equal(atomic_load(&s[i]), 1);
        assert_int_equal(last, 2);
        atomic_int p[3] = {0};
#pragma omp parallel sections
        {
#pragma omp section
            atomic_fetch_add(&p[0], 1);
#pragma omp section
            atomic_fetch_add(&p[1], 1);
#pragma omp section
            atomic_fetch_add(&p[2], 1);
        }
        for (int i = 0; i < 3; i++)
            assert_int_equal(atomic_load(&p[i]), 1);
    }
}

/* A worksharing loop outside any region (an orphaned construct) is a
 * team of one. */
static void orphan(int from, int to)
{
#pragma omp for schedule(dynamic, 2)
    for (int i = from; i < to; i++)
        atomic_fetch_add(&hits[i], 1);
}

static void test_orphaned(void **state)
{
    (void)state;
    clear_hits();
    orphan(0, 500);
#pragma omp parallel
    orphan(500, 1000);
    assert_each_once(1000);
}

/* How long a round's slow iteration waits for a thread to leave its loop:
 * long enough for the rest of the team to be scheduled on a loaded machine. */
enum { SLOW_ITERATION_MS = 20 };

/* A loop without nowait ends with a barrier: after it, every thread sees
 * every iteration done (the explicit barriers keep the next loop's writes
 * from the checks). */
static void test_loop_end_barrier(void **state)
{
    (void)state;
    enum { ROUNDS = 10 };
    /* left_*: the last round some thread has left that loop in.  A round's
     * slow iteration waits until a thread has left (only a missing end
     * barrier lets one before it ends) or its deadline, so that a thread
     * leaving early runs its check however the OS schedules the team.  The
     * raise (seq-cst) pairs with test_wait_at_least's load. */
    static atomic_int done[64];
    static atomic_int left_dynamic, left_static;
    atomic_int bad = 0;
    for (int i = 0; i < 64; i++)
        atomic_store(&done[i], 0);
    atomic_store(&left_dynamic, 0);
    atomic_store(&left_static, 0);
#pragma omp parallel
    for (int r = 1; r <= ROUNDS; r++) {
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < 64; i++) {
            if (i == (r * 7) % 64)
                (void)test_wait_at_least(&left_dynamic, r, SLOW_ITERATION_MS);
            atomic_store(&done[i], r);
        }
        for (int i = 0; i < 64; i++)
            if (atomic_load(&done[i]) < r)
                atomic_fetch_add(&bad, 1);
        test_raise_to(&left_dynamic, r);
#pragma omp barrier
#pragma omp for schedule(static)
        for (int i = 0; i < 64; i++) {
            if (i == (r * 5) % 64)
                (void)test_wait_at_least(&left_static, r, SLOW_ITERATION_MS);
            atomic_store(&done[i], -r);
        }
        for (int i = 0; i < 64; i++)
            if (atomic_load(&done[i]) > -r)
                atomic_fetch_add(&bad, 1);
        test_raise_to(&left_static, r);
#pragma omp barrier
    }
    assert_int_equal(atomic_load(&bad), 0);
}

static void test_reduction_loop(void **state)
{
    (void)state;
    long sum = 0;
    double d = 0;
#pragma omp parallel for reduction(+ : sum, d) schedule(guided)
    for (int i = 1; i <= 10000; i++) {
        sum += i;
        d += 1.0 / i;
    }
    assert_int_equal(sum, 50005000);
    assert_true(d > 9.78 && d < 9.79);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_schedules),
        cmocka_unit_test(test_schedule_clauses),
        cmocka_unit_test(test_combined_parallel_for),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_collapse_and_lastprivate),
        cmocka_unit_test(test_nowait_ring),
        cmocka_unit_test(test_static_same_threads),
        cmocka_unit_test(test_ordered),
        cmocka_unit_test(test_doacross),
        cmocka_unit_test(test_doacross_many_dims),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_orphaned),
        cmocka_unit_test(test_loop_end_barrier),
        cmocka_unit_test(test_reduction_loop),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
