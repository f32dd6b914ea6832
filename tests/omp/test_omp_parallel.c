/* libspool-omp, the parallel construct: team sizes (num_threads, if,
 * nthreads-var, dyn-var), thread numbers, nesting levels, reductions,
 * threadprivate with copyin, the GOMP_1.0 start/end pair.  Run with
 * OMP_NUM_THREADS=4 (ctest): a pool of 3 workers and the main thread. */
#include <complex.h>

#include "omp_test.h"

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

/* What the threads of one region saw. */
typedef struct seen {
    atomic_int count, size, ids, workers;
    atomic_int level, active;
} seen_t;

static void note(seen_t *s)
{
    atomic_fetch_add(&s->count, 1);
    atomic_store(&s->size, omp_get_num_threads());
    atomic_fetch_or(&s->ids, 1 << omp_get_thread_num());
    if (spool_current_thread_index() >= 0)
        atomic_fetch_add(&s->workers, 1);
    atomic_store(&s->level, omp_get_level());
    atomic_store(&s->active, omp_get_active_level());
}

static void test_runs_on_spool(void **state)
{
    (void)state;
    omp_test_assert_on_spool();
    assert_int_equal(omp_get_max_threads(), 4);
    assert_false(omp_get_dynamic()); /* libgomp's default */
}

static void test_team_of_the_pool(void **state)
{
    (void)state;
    /* Region after region the pool's idle workers come back: every one
     * has all four threads, thread 0 the encountering thread and the
     * others spool workers. */
    pthread_t self = pthread_self();
    for (int r = 0; r < 200; r++) {
        seen_t s = {0};
        atomic_int main_is_zero = 0;
#pragma omp parallel
        {
            note(&s);
            if (omp_get_thread_num() == 0 && pthread_equal(pthread_self(), self))
                atomic_store(&main_is_zero, 1);
        }
        assert_int_equal(atomic_load(&s.count), 4);
        assert_int_equal(atomic_load(&s.size), 4);
        assert_int_equal(atomic_load(&s.ids), 0xf);
        assert_int_equal(atomic_load(&s.workers), 3);
        assert_int_equal(atomic_load(&s.level), 1);
        assert_int_equal(atomic_load(&s.active), 1);
        assert_true(atomic_load(&main_is_zero));
    }
    assert_int_equal(omp_get_level(), 0);
    assert_int_equal(omp_get_num_threads(), 1);
    assert_int_equal(omp_get_thread_num(), 0);
}

static void test_num_threads_and_if(void **state)
{
    (void)state;
    for (int n = 1; n <= 4; n++) {
        seen_t s = {0};
#pragma omp parallel num_threads(n)
        note(&s);
        assert_int_equal(atomic_load(&s.count), n);
        assert_int_equal(atomic_load(&s.size), n);
        assert_int_equal(atomic_load(&s.ids), (1 << n) - 1);
        assert_int_equal(atomic_load(&s.active), n > 1);
    }
    int off = 0;
    seen_t s = {0};
    atomic_int in_parallel = -1;
#pragma omp parallel if (off)
    {
        note(&s);
        atomic_store(&in_parallel, omp_in_parallel());
    }
    assert_int_equal(atomic_load(&s.count), 1);
    assert_int_equal(atomic_load(&s.level), 1);  /* an inactive region is a level */
    assert_int_equal(atomic_load(&s.active), 0);
    assert_int_equal(atomic_load(&in_parallel), 0);
}

static void test_set_num_threads(void **state)
{
    (void)state;
    omp_set_num_threads(3);
    assert_int_equal(omp_get_max_threads(), 3);
    seen_t s = {0};
#pragma omp parallel
    note(&s);
    assert_int_equal(atomic_load(&s.size), 3);
    omp_set_num_threads(4);
}

static void test_nested_inactive(void **state)
{
    (void)state;
    /* max-active-levels is 1: the inner regions have one thread each. */
    assert_int_equal(omp_get_max_active_levels(), 1);
    atomic_int bad = 0, inner = 0;
#pragma omp parallel
    {
        int outer = omp_get_thread_num();
#pragma omp parallel
        {
            atomic_fetch_add(&inner, 1);
            if (omp_get_num_threads() != 1 || omp_get_level() != 2 ||
                omp_get_active_level() != 1 || omp_get_ancestor_thread_num(1) != outer ||
                omp_get_ancestor_thread_num(2) != 0 || omp_get_ancestor_thread_num(0) != 0 ||
                omp_get_team_size(1) != 4 || omp_get_team_size(2) != 1 ||
                omp_get_team_size(0) != 1 || omp_get_team_size(3) != -1 ||
                omp_get_ancestor_thread_num(-1) != -1 || !omp_in_parallel())
                atomic_fetch_add(&bad, 1);
        }
    }
    assert_int_equal(atomic_load(&inner), 4);
    assert_int_equal(atomic_load(&bad), 0);
}

static void test_nested_active(void **state)
{
    (void)state;
    /* The process's threads with the pool up (and a sanitizer's own). */
#pragma omp parallel
    {
    }
    int baseline = test_os_threads();
    omp_set_max_active_levels(2);
    atomic_int threads = 0, bad = 0, most_os_threads = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        {
            int n = omp_get_num_threads();
            if (n < 1 || n > 2 || omp_get_team_size(1) != 2 || omp_get_level() != 2 ||
                omp_get_active_level() != (n == 2 ? 2 : 1))
                atomic_fetch_add(&bad, 1);
            atomic_fetch_add(&threads, 1);
            test_raise_to(&most_os_threads, test_os_threads());
        }
    }
    omp_set_max_active_levels(1);
    assert_int_equal(atomic_load(&bad), 0);
    /* The pool has three idle workers beside main: both inner teams get
     * their second thread (a worker done with one inner team may serve the
     * other), and no thread is made for them. */
    assert_int_equal(atomic_load(&threads), 4);
    assert_true(atomic_load(&most_os_threads) <= baseline);
}

/* Each thread's kernel id in a team of n, by thread number. */
static void team_tids(int n, pid_t *tids, seen_t *s)
{
#pragma omp parallel num_threads(n)
    {
        note(s);
        tids[omp_get_thread_num()] = (pid_t)syscall(SYS_gettid);
    }
}

static int bound_tp = -1;
#pragma omp threadprivate(bound_tp)

static void test_dynamic(void **state)
{
    (void)state;
    /* dyn-var false (the default): every thread asked for, beyond the
     * pool's three workers from reserve threads, and thread number k is the
     * same thread region after region, so threadprivate data persists. */
    pid_t first[8], again[8];
    seen_t s = {0};
    team_tids(8, first, &s);
    assert_int_equal(atomic_load(&s.count), 8);
    assert_int_equal(atomic_load(&s.ids), 0xff);
    for (int r = 0; r < 50; r++) {
        seen_t t = {0};
        atomic_int kept = 0;
#pragma omp parallel num_threads(8)
        {
            note(&t);
            again[omp_get_thread_num()] = (pid_t)syscall(SYS_gettid);
            if (r == 0 || bound_tp == 100 * (r - 1) + omp_get_thread_num())
                atomic_fetch_add(&kept, 1);
            bound_tp = 100 * r + omp_get_thread_num();
        }
        assert_int_equal(atomic_load(&t.count), 8);
        assert_int_equal(atomic_load(&t.size), 8);
        assert_int_equal(atomic_load(&kept), 8);
        for (int k = 0; k < 8; k++)
            assert_int_equal(again[k], first[k]);
    }
    /* dyn-var true: no more threads than the pool lends. */
    omp_set_dynamic(1);
    assert_true(omp_get_dynamic());
    seen_t d = {0};
#pragma omp parallel num_threads(8)
    note(&d);
    assert_int_equal(atomic_load(&d.size), 4);
    omp_set_dynamic(0);
}

static void test_reductions(void **state)
{
    (void)state;
    long sum = 0, prod = 1;
    double dsum = 0;
    int mx = -1, mn = 1 << 30, land = 1, lor = 0;
    unsigned x = 0;
    double complex c = 0;
#pragma omp parallel reduction(+ : sum, dsum, c) reduction(* : prod) reduction(max : mx)     \
    reduction(min : mn) reduction(&& : land) reduction(|| : lor) reduction(^ : x)
    {
        int id = omp_get_thread_num();
        sum += id + 1;
        dsum += 0.5;
        c += 1.0 + 1.0 * I;
        prod *= 2;
        mx = mx > id ? mx : id;
        mn = mn < id ? mn : id;
        land = land && id < 4;
        lor = lor || id == 3;
        x ^= 1u << id;
    }
    assert_int_equal(sum, 10);
    assert_true(dsum == 2.0);
    assert_true(creal(c) == 4.0 && cimag(c) == 4.0);
    assert_int_equal(prod, 16);
    assert_int_equal(mx, 3);
    assert_int_equal(mn, 0);
    assert_int_equal(land, 1);
    assert_int_equal(lor, 1);
    assert_int_equal(x, 0xf);
}

static int tp;
#pragma omp threadprivate(tp)

static void test_copyin(void **state)
{
    (void)state;
    for (int r = 1; r <= 50; r++) {
        tp = 1000 + r;
        atomic_int good = 0;
#pragma omp parallel copyin(tp)
        {
            if (tp == 1000 + r)
                atomic_fetch_add(&good, 1);
            tp = omp_get_thread_num(); /* each thread's own copy */
        }
        assert_int_equal(atomic_load(&good), 4);
        assert_int_equal(tp, 0); /* the main thread's copy is thread 0's */
    }
}

static void count_one(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void test_gomp_1_start_end(void **state)
{
    (void)state;
    atomic_int n = 0;
    GOMP_parallel_start(count_one, &n, 3);
    count_one(&n);
    GOMP_parallel_end();
    assert_int_equal(atomic_load(&n), 3);
}

static void test_proc_bind_accepted(void **state)
{
    (void)state;
    seen_t s = {0};
#pragma omp parallel proc_bind(spread)
    note(&s);
    assert_int_equal(atomic_load(&s.size), 4);
    assert_int_equal(omp_get_proc_bind(), omp_proc_bind_false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_on_spool),
        cmocka_unit_test(test_team_of_the_pool),
        cmocka_unit_test(test_num_threads_and_if),
        cmocka_unit_test(test_set_num_threads),
        cmocka_unit_test(test_nested_inactive),
        cmocka_unit_test(test_nested_active),
        cmocka_unit_test(test_dynamic),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_copyin),
        cmocka_unit_test(test_gomp_1_start_end),
        cmocka_unit_test(test_proc_bind_accepted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
