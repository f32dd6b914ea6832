/* libspool-omp, synchronisation: barrier, critical (unnamed and named),
 * the atomic construct's lock, single (with nowait and copyprivate),
 * master and masked, the omp_ locks (simple and nested, with hints; their
 * sizes as gcc's omp.h declares them), and the bad uses of a lock.  Each
 * check is made so that it fails when its construct does nothing. */
#include <stdalign.h>

#include "omp_test.h"

static unsigned long rounds(void)
{
    return test_iters("SPOOL_TEST_OMP_ROUNDS", 300);
}

/* A barrier: each thread writes its slot of the round, waits, then reads
 * every slot; one that was not written yet means a thread went on early. */
static void test_barrier(void **state)
{
    (void)state;
    static atomic_long slot[64];
    atomic_int bad = 0;
    unsigned long n = rounds();
#pragma omp parallel
    {
        int id = omp_get_thread_num(), nt = omp_get_num_threads();
        for (unsigned long r = 1; r <= n; r++) {
            if ((r + (unsigned long)id) % 5 == 0)
                test_busy_ns(20000);
            atomic_store(&slot[id], (long)r);
#pragma omp barrier
            for (int i = 0; i < nt; i++)
                if (atomic_load(&slot[i]) < (long)r)
                    atomic_fetch_add(&bad, 1);
#pragma omp barrier
        }
    }
    assert_int_equal(atomic_load(&bad), 0);
}

/* A read-modify-write of a plain variable that yields in the middle: two
 * threads in it at once lose an update. */
static void bump(long *v)
{
    long x = *v;
    sched_yield();
    *v = x + 1;
}

static void test_critical(void **state)
{
    (void)state;
    long a = 0, b = 0, c = 0;
    long n = (long)rounds();
#pragma omp parallel
    for (long r = 0; r < n; r++) {
#pragma omp critical
        bump(&a);
#pragma omp critical(one)
        bump(&b);
#pragma omp critical(two)
        bump(&c);
    }
    assert_int_equal(a, 4 * n);
    assert_int_equal(b, 4 * n);
    assert_int_equal(c, 4 * n);
}

/* gcc's calls around an atomic update it cannot make with one instruction
 * (omp_test.h does not declare them: libgomp's own entry points). */
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

/* Types the compiler cannot update with one instruction take the atomic
 * construct's lock: a long double update under the construct, and (so
 * that an update lost without the lock shows on any machine) the lock's
 * calls, as gcc emits them, around an update that yields in the middle. */
static void test_atomic_fallback(void **state)
{
    (void)state;
    long double ld = 0, ld2 = 0;
    long n = (long)rounds() * 50, m = (long)rounds();
    long plain = 0;
#pragma omp parallel
    {
        for (long r = 0; r < n; r++) {
#pragma omp atomic
            ld += 1.0L;
#pragma omp atomic update
            ld2 -= 2.0L;
        }
        for (long r = 0; r < m; r++) {
            GOMP_atomic_start();
            bump(&plain);
            GOMP_atomic_end();
        }
    }
    assert_true(ld == (long double)(4 * n));
    assert_true(ld2 == (long double)(-8 * n));
    assert_int_equal(plain, 4 * m);
}

static void test_single(void **state)
{
    (void)state;
    atomic_int ran[64] = {0};
    atomic_int nowait_ran = 0;
#pragma omp parallel
    {
        for (int k = 0; k < 64; k++) {
#pragma omp single
            {
                sched_yield();
                atomic_fetch_add(&ran[k], 1);
            }
        }
        for (int k = 0; k < 200; k++) {
#pragma omp single nowait
            atomic_fetch_add(&nowait_ran, 1);
        }
    }
    for (int k = 0; k < 64; k++)
        assert_int_equal(atomic_load(&ran[k]), 1);
    assert_int_equal(atomic_load(&nowait_ran), 200);
}

static void test_copyprivate(void **state)
{
    (void)state;
    atomic_int bad = 0, executions[100] = {0};
#pragma omp parallel
    {
        for (int r = 0; r < 100; r++) {
            int v = -1;
            double w = -1;
#pragma omp single copyprivate(v, w)
            {
                atomic_fetch_add(&executions[r], 1);
                sched_yield();
                v = 1000 * r + omp_get_thread_num(); /* the executing thread's own */
                w = r * 0.5;
            }
            /* Every thread has the one executing thread's values. */
            if (v / 1000 != r || v % 1000 >= omp_get_num_threads() || w != r * 0.5)
                atomic_fetch_add(&bad, 1);
            int first = v;
#pragma omp barrier
#pragma omp single copyprivate(first)
            first = v;
            if (first != v)
                atomic_fetch_add(&bad, 1);
        }
    }
    assert_int_equal(atomic_load(&bad), 0);
    for (int r = 0; r < 100; r++)
        assert_int_equal(atomic_load(&executions[r]), 1);
}

static void test_master_masked(void **state)
{
    (void)state;
    atomic_int master = 0, masked = 0, who = -1, who2 = -1;
#pragma omp parallel
    {
#pragma omp master
        {
            atomic_fetch_add(&master, 1);
            atomic_store(&who, omp_get_thread_num());
        }
#pragma omp masked filter(2)
        {
            atomic_fetch_add(&masked, 1);
            atomic_store(&who2, omp_get_thread_num());
        }
    }
    assert_int_equal(atomic_load(&master), 1);
    assert_int_equal(atomic_load(&who), 0);
    assert_int_equal(atomic_load(&masked), 1);
    assert_int_equal(atomic_load(&who2), 2);
}

static void test_lock_layout(void **state)
{
    (void)state;
    /* gcc 12's omp.h on Linux: 4 bytes aligned to 4; 8 + a pointer,
     * aligned to a pointer.  The library holds its locks in them. */
    assert_int_equal(sizeof(omp_lock_t), 4);
    assert_int_equal(alignof(omp_lock_t), 4);
    assert_int_equal(sizeof(omp_nest_lock_t), 8 + sizeof(void *));
    assert_int_equal(alignof(omp_nest_lock_t), alignof(void *));
}

static void test_simple_lock(void **state)
{
    (void)state;
    omp_lock_t lock, hinted;
    omp_init_lock(&lock);
    omp_init_lock_with_hint(&hinted, omp_sync_hint_contended);
    long v = 0, w = 0;
    long n = (long)rounds();
    atomic_int tested = 0;
#pragma omp parallel
    for (long r = 0; r < n; r++) {
        omp_set_lock(&lock);
        bump(&v);
        omp_unset_lock(&lock);
        while (!omp_test_lock(&hinted))
            sched_yield();
        atomic_fetch_add(&tested, 1);
        bump(&w);
        omp_unset_lock(&hinted);
    }
    assert_int_equal(v, 4 * n);
    assert_int_equal(w, 4 * n);
    assert_true(omp_test_lock(&lock));
    assert_false(omp_test_lock(&lock)); /* held, by anyone */
    omp_unset_lock(&lock);
    omp_destroy_lock(&lock);
    omp_destroy_lock(&hinted);
}

static void nested_bump(omp_nest_lock_t *l, long *v, int depth)
{
    omp_set_nest_lock(l);
    if (depth > 0)
        nested_bump(l, v, depth - 1);
    else
        bump(v);
    omp_unset_nest_lock(l);
}

static void test_nest_lock(void **state)
{
    (void)state;
    omp_nest_lock_t l;
    omp_init_nest_lock_with_hint(&l, omp_sync_hint_uncontended);
    long v = 0;
    long n = (long)rounds();
    atomic_int bad = 0;
#pragma omp parallel
    for (long r = 0; r < n; r++) {
        nested_bump(&l, &v, 3);
        int depth = omp_test_nest_lock(&l);
        if (depth > 0) {
            if (omp_test_nest_lock(&l) != depth + 1)
                atomic_fetch_add(&bad, 1);
            omp_unset_nest_lock(&l);
            omp_unset_nest_lock(&l);
        }
    }
    assert_int_equal(v, 4 * n);
    assert_int_equal(atomic_load(&bad), 0);
    omp_destroy_nest_lock(&l);
    omp_init_nest_lock(&l);
    assert_int_equal(omp_test_nest_lock(&l), 1);
    assert_int_equal(omp_test_nest_lock(&l), 2);
    /* Another task does not own it. */
    atomic_int other = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        atomic_store(&other, omp_test_nest_lock(&l));
    assert_int_equal(atomic_load(&other), 0);
    omp_unset_nest_lock(&l);
    omp_unset_nest_lock(&l);
    omp_destroy_nest_lock(&l);
}

static void destroy_held(void)
{
    omp_lock_t l;
    omp_init_lock(&l);
    omp_set_lock(&l);
    omp_destroy_lock(&l);
}

static void unset_free(void)
{
    omp_lock_t l;
    omp_init_lock(&l);
    omp_unset_lock(&l);
}

static void destroy_held_nest(void)
{
    omp_nest_lock_t l;
    omp_init_nest_lock(&l);
    omp_set_nest_lock(&l);
    omp_destroy_nest_lock(&l);
}

static void unset_other_task(void)
{
    static omp_nest_lock_t l;
    omp_init_nest_lock(&l);
    omp_set_nest_lock(&l);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        omp_unset_nest_lock(&l);
}

static void test_bad_lock_use(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(destroy_held, "omp_destroy_lock: the lock"), 0);
    assert_int_equal(test_expect_abort(unset_free, "omp_unset_lock: the lock"), 0);
    assert_int_equal(test_expect_abort(destroy_held_nest, "omp_destroy_nest_lock: the lock"), 0);
    assert_int_equal(test_expect_abort(unset_other_task, "not held by this task"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_critical),
        cmocka_unit_test(test_atomic_fallback),
        cmocka_unit_test(test_single),
        cmocka_unit_test(test_copyprivate),
        cmocka_unit_test(test_master_masked),
        cmocka_unit_test(test_lock_layout),
        cmocka_unit_test(test_simple_lock),
        cmocka_unit_test(test_nest_lock),
        cmocka_unit_test(test_bad_lock_use),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
