/* libspool-omp with spool: one pool for both.  Regions inside spool jobs
 * take the pool's idle workers and never make threads; spool_join,
 * spool_for and scopes inside a region run on the same workers; teams
 * whose threads wait at barriers while jobs of other teams run on them
 * finish.  OMP_NUM_THREADS=4: a pool of 3 workers and the caller slot. */
#include "omp_test.h"

static atomic_int most_threads;
/* The process's threads once the pool is up: main, its workers, and any
 * of a sanitizer's own. */
static int baseline_threads;

static void note_threads(void)
{
    test_raise_to(&most_threads, test_os_threads());
}

static void test_one_pool(void **state)
{
    (void)state;
    /* The first region configures the global pool for OpenMP. */
    atomic_int n = 0;
#pragma omp parallel
    atomic_fetch_add(&n, 1);
    assert_int_equal(atomic_load(&n), 4);
    assert_int_equal(spool_current_num_threads(), 4); /* 3 workers and the slot */
    assert_int_equal(omp_get_max_threads(), 4);
    assert_false(omp_get_dynamic()); /* outside any spool job */
    baseline_threads = test_os_threads();
    assert_true(baseline_threads >= 4);
    atomic_store(&most_threads, 0);
    note_threads();
}

typedef struct part_result {
    atomic_int regions, members, bad;
} part_result_t;

/* A spool_for's part that opens a region of 8: as many threads as the pool
 * lends it (dyn-var is true inside a spool job), every one a worker or the
 * caller slot's holder.  A part may run on a worker parked at another
 * part's barrier: it is still outside any region. */
static void part_with_region(void *arg, size_t begin, size_t end)
{
    part_result_t *r = arg;
    (void)begin;
    (void)end;
    atomic_int members = 0;
    int size = -1;
    /* Outside any region, also where a team thread parked at a barrier
     * runs it. */
    if (!omp_get_dynamic() || omp_get_level() != 0 || omp_get_thread_num() != 0)
        atomic_fetch_add(&r->bad, 1);
#pragma omp parallel num_threads(8)
    {
        note_threads();
        atomic_fetch_add(&members, 1);
        if (spool_current_thread_index() < 0 && omp_get_thread_num() != 0)
            atomic_fetch_add(&r->bad, 1);
#pragma omp barrier
#pragma omp single
        size = omp_get_num_threads();
#pragma omp for
        for (int k = 0; k < 100; k++)
            test_busy_ns(1000);
    }
    if (atomic_load(&members) != size || size < 1 || size > 4)
        atomic_fetch_add(&r->bad, 1);
    atomic_fetch_add(&r->regions, 1);
    atomic_fetch_add(&r->members, size);
}

static void test_regions_inside_spool_for(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        part_result_t r = {0};
        spool_for_opts_t opts = {.min_len = 1, .max_len = 1};
        spool_for(0, 16, &opts, part_with_region, &r);
        assert_int_equal(atomic_load(&r.regions), 16);
        assert_int_equal(atomic_load(&r.bad), 0);
    }
    /* Never more threads than the pool's three and main. */
    assert_true(atomic_load(&most_threads) <= baseline_threads);
}

static void square(void *arg, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        ((long *)arg)[i] = (long)(i * i);
}

typedef struct fib_arg {
    int n;
    long r;
} fib_arg_t;

static void fib(void *p)
{
    fib_arg_t *f = p;
    if (f->n < 15) {
        long a = 0, b = 1;
        for (int i = 0; i < f->n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        f->r = a;
        return;
    }
    fib_arg_t x = {f->n - 1, 0}, y = {f->n - 2, 0};
    spool_join(fib, &x, fib, &y);
    f->r = x.r + y.r;
}

static void scope_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void scope_body(spool_scope_t *scope, void *arg)
{
    for (int i = 0; i < 50; i++)
        spool_scope_spawn(scope, scope_job, arg);
}

static void test_spool_inside_regions(void **state)
{
    (void)state;
    static long sq[4][1000];
    atomic_int bad = 0, spawned = 0, team = 0;
    /* dyn-var true (the default outside spool jobs is libgomp's false):
     * the team takes the pool's idle workers only, and makes no thread
     * where one is still busy. */
    omp_set_dynamic(1);
#pragma omp parallel
    {
        int id = omp_get_thread_num();
#pragma omp single
        atomic_store(&team, omp_get_num_threads());
        note_threads();
        spool_for(0, 1000, NULL, square, sq[id]);
        fib_arg_t f = {25, 0};
        fib(&f);
        if (f.r != 75025)
            atomic_fetch_add(&bad, 1);
        spool_scope(scope_body, &spawned);
#pragma omp barrier
        for (int i = 0; i < 1000; i++)
            if (sq[id][i] != (long)i * i)
                atomic_fetch_add(&bad, 1);
    }
    omp_set_dynamic(0);
    assert_int_equal(atomic_load(&bad), 0);
    /* The team has the pool's idle workers (dyn-var): up to 4 threads. */
    assert_true(atomic_load(&team) >= 1 && atomic_load(&team) <= 4);
    assert_int_equal(atomic_load(&spawned), 50 * atomic_load(&team));
    assert_true(atomic_load(&most_threads) <= baseline_threads);
}

/* Teams of many spool jobs at once, each with barriers: a thread waiting
 * at its team's barrier runs other jobs, which lead teams of their own;
 * none may wait for a team it blocks. */
static void busy_team(void *arg, size_t begin, size_t end)
{
    atomic_long *sum = arg;
    (void)begin;
    (void)end;
    long local = 0;
#pragma omp parallel reduction(+ : local)
    {
        for (int b = 0; b < 5; b++) {
#pragma omp for schedule(dynamic)
            for (int k = 0; k < 64; k++)
                local += k;
        }
    }
    atomic_fetch_add(sum, local);
}

static void test_teams_inside_teams(void **state)
{
    (void)state;
    for (int round = 0; round < 10; round++) {
        atomic_long sum = 0;
        spool_for_opts_t opts = {.min_len = 1, .max_len = 1};
        spool_for(0, 64, &opts, busy_team, &sum);
        assert_int_equal(atomic_load(&sum), 64L * 5 * (63 * 64 / 2));
    }
    /* Inside a region, the regions that spool's jobs open are nested ones,
     * under the region's ICVs: dyn-var true keeps them within the pool. */
    omp_set_max_active_levels(3);
    omp_set_dynamic(1);
    atomic_long sum = 0;
#pragma omp parallel
    {
        spool_for_opts_t opts = {.min_len = 1, .max_len = 1};
        spool_for(0, 8, &opts, busy_team, &sum);
    }
    omp_set_dynamic(0);
    omp_set_max_active_levels(1);
    assert_int_equal(atomic_load(&sum), 4L * 8 * 5 * (63 * 64 / 2));
    assert_true(atomic_load(&most_threads) <= baseline_threads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pool),
        cmocka_unit_test(test_regions_inside_spool_for),
        cmocka_unit_test(test_spool_inside_regions),
        cmocka_unit_test(test_teams_inside_teams),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
