/* libspool-omp, the device constructs on the host: target regions (map,
 * firstprivate, thread_limit, nowait and depend, a target inside a
 * parallel region and a parallel region inside a target, teams in a
 * target), the data constructs, and OMP_TARGET_OFFLOAD=mandatory. */
#include <stdlib.h>

#include "omp_test.h"

#define N 1000

/* map(tofrom) and map(to)/map(from): the region sees and changes the
 * host's arrays. */
static void test_target_map(void **state)
{
    (void)state;
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i;
#pragma omp target map(to : in) map(from : out)
    for (int i = 0; i < N; i++)
        out[i] = 2 * in[i];
    for (int i = 0; i < N; i++)
        assert_int_equal(out[i], 2 * i);
    long total = 0;
#pragma omp target map(tofrom : total)
    for (int i = 0; i < N; i++)
        total += in[i];
    assert_int_equal(total, (long)N * (N - 1) / 2);
}

/* firstprivate (the default for scalars): the region's writes stay in its
 * copy, also for a large, aligned struct. */
static void test_target_firstprivate(void **state)
{
    (void)state;
    int x = 7;
    struct big {
        _Alignas(64) double v[100];
    } b;
    for (int i = 0; i < 100; i++)
        b.v[i] = i;
    int seen = 0;
    double seen_sum = 0;
    int aligned = 0;
#pragma omp target firstprivate(x, b) map(from : seen, seen_sum, aligned)
    {
        seen = x;
        x = 99;
        aligned = ((uintptr_t)&b % 64) == 0;
        double s = 0;
        for (int i = 0; i < 100; i++) {
            s += b.v[i];
            b.v[i] = -1;
        }
        seen_sum = s;
    }
    assert_int_equal(seen, 7);
    assert_int_equal(x, 7);
    assert_true(seen_sum == 4950.0);
    assert_true(b.v[5] == 5.0);
    assert_int_equal(aligned, 1);
}

/* Inside a target region the thread is an initial thread of its own:
 * level 0, not in parallel, the environment's thread_limit unless the
 * clause sets one; a parallel region inside it has a team. */
static void test_target_initial_thread(void **state)
{
    (void)state;
    int level = -1, in_par = -1, limit = -1, initial = -1, team = -1, inner_level = -1;
#pragma omp target map(from : level, in_par, limit, initial, team, inner_level) thread_limit(3)
    {
        level = omp_get_level();
        in_par = omp_in_parallel();
        limit = omp_get_thread_limit();
        initial = omp_is_initial_device();
#pragma omp parallel num_threads(2)
        {
#pragma omp master
            {
                team = omp_get_num_threads();
                inner_level = omp_get_level();
            }
        }
    }
    assert_int_equal(level, 0);
    assert_int_equal(in_par, 0);
    assert_int_equal(limit, 3);
    assert_int_equal(initial, 1);
    assert_true(team >= 1 && team <= 2);
    assert_int_equal(inner_level, 1);
    /* Outside again, the thread is what it was. */
    assert_int_equal(omp_get_level(), 0);
}

/* A target region in each thread of a team: each runs on its thread, and
 * the team state is back afterwards. */
static void test_target_in_parallel(void **state)
{
    (void)state;
    int levels[64], ids[64], after[64];
    int nt = 0;
#pragma omp parallel shared(nt)
    {
        int id = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        int l = -1;
#pragma omp target map(from : l)
        l = omp_get_level();
        levels[id] = l;
        ids[id] = omp_get_thread_num();
#pragma omp barrier
        after[id] = omp_get_level();
    }
    assert_true(nt >= 1 && nt <= 64);
    for (int i = 0; i < nt; i++) {
        assert_int_equal(levels[i], 0);
        assert_int_equal(ids[i], i);
        assert_int_equal(after[i], 1);
    }
}

/* target teams distribute parallel for: every iteration once. */
static void test_target_teams(void **state)
{
    (void)state;
    static int hit[N];
    memset(hit, 0, sizeof hit);
    int teams = 0;
#pragma omp target teams distribute parallel for map(tofrom : hit, teams)
    for (int i = 0; i < N; i++) {
        hit[i]++;
        if (i == 0)
            teams = omp_get_num_teams();
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(hit[i], 1);
    assert_true(teams >= 1);
}

/* The data constructs and nowait/depend: the host's memory throughout. */
static void test_target_data(void **state)
{
    (void)state;
    static double a[N];
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp target data map(tofrom : a)
    {
#pragma omp target
        for (int i = 0; i < N; i++)
            a[i] += 1;
#pragma omp target update from(a)
        assert_true(a[10] == 11.0);
    }
#pragma omp target enter data map(to : a)
    int done = 0;
#pragma omp target nowait depend(out : a) map(tofrom : done)
    done = 1;
#pragma omp taskwait
#pragma omp target exit data map(from : a)
    assert_int_equal(done, 1);
    assert_true(a[N - 1] == (double)N);
}

/* A device that does not exist: mandatory stops the program. */
static void target_mandatory(void)
{
    setenv("OMP_TARGET_OFFLOAD", "mandatory", 1);
    int x = 0;
#pragma omp target map(tofrom : x) device(1)
    x = 1;
    exit(x == 1 ? 0 : 3);
}

/* The default device is the initial device, the host (there is no other,
 * as in libgomp without one), also under mandatory. */
static void target_mandatory_default(void)
{
    setenv("OMP_TARGET_OFFLOAD", "mandatory", 1);
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 1;
    omp_set_default_device(omp_get_initial_device());
#pragma omp target map(tofrom : x) device(omp_get_initial_device())
    x++;
    if (x != 2)
        abort(); /* not run: test_expect_abort then says so (not 1) */
}

/* if(false) asks for the host: it runs there even under mandatory. */
static void target_mandatory_if_false(void)
{
    setenv("OMP_TARGET_OFFLOAD", "mandatory", 1);
    int x = 0, off = 0;
#pragma omp target map(tofrom : x) if (off)
    x = 1;
    if (x != 1)
        abort(); /* not run: test_expect_abort then says so (not 1) */
}

static void test_target_mandatory(void **state)
{
    (void)state;
    /* 1: it ran the region and did not abort. */
    assert_int_equal(test_expect_abort(target_mandatory_if_false, "mandatory"), 1);
    assert_int_equal(test_expect_abort(target_mandatory_default, "mandatory"), 1);
    assert_int_equal(test_expect_abort(target_mandatory,
                                       "GOMP_target_ext: OMP_TARGET_OFFLOAD=mandatory"),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target_map),
        cmocka_unit_test(test_target_firstprivate),
        cmocka_unit_test(test_target_initial_thread),
        cmocka_unit_test(test_target_in_parallel),
        cmocka_unit_test(test_target_teams),
        cmocka_unit_test(test_target_data),
        cmocka_unit_test(test_target_mandatory),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
