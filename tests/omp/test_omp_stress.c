/* libspool-omp under load: several application threads open short
 * regions at once (loops, singles, barriers, criticals, nested regions),
 * beside threads that run spool loops in the same pool; every result is
 * checked.  Counts: SPOOL_TEST_OMP_STRESS_ROUNDS (per thread),
 * SPOOL_TEST_SCALE. */
#include "omp_test.h"

enum { APP_THREADS = 4 };

typedef struct app {
    pthread_t thread;
    unsigned long rounds;
    int id;
    atomic_int bad;
} app_t;

static void *omp_user(void *p)
{
    app_t *a = p;
    for (unsigned long r = 0; r < a->rounds; r++) {
        long sum = 0, crit = 0;
        int single_runs = 0;
        int nt = (int)(r % 4) + 1;
#pragma omp parallel num_threads(nt) reduction(+ : sum)
        {
#pragma omp for schedule(dynamic, 3) nowait
            for (int i = 0; i < 100; i++)
                sum += i;
#pragma omp single
            single_runs++;
#pragma omp critical
            crit++;
#pragma omp barrier
            if (r % 16 == 0) {
#pragma omp parallel num_threads(2)
                {
#pragma omp atomic
                    crit += 0;
                }
            }
        }
        if (sum != 4950 || single_runs != 1 || crit < 1 || crit > nt)
            atomic_fetch_add(&a->bad, 1);
    }
    return NULL;
}

static void add_range(void *ctx, size_t b, size_t e)
{
    atomic_fetch_add((atomic_long *)ctx, (long)(e - b));
}

static void *spool_user(void *p)
{
    app_t *a = p;
    for (unsigned long r = 0; r < a->rounds; r++) {
        atomic_long n = 0;
        spool_for(0, 1000, NULL, add_range, &n);
        if (atomic_load(&n) != 1000)
            atomic_fetch_add(&a->bad, 1);
    }
    return NULL;
}

static void test_many_threads_many_regions(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_OMP_STRESS_ROUNDS", 20000);
    app_t apps[APP_THREADS + 1];
    for (int i = 0; i <= APP_THREADS; i++) {
        apps[i] = (app_t){.rounds = rounds, .id = i};
        atomic_init(&apps[i].bad, 0);
        assert_int_equal(pthread_create(&apps[i].thread, NULL, i < APP_THREADS ? omp_user : spool_user,
                                        &apps[i]),
                         0);
    }
    for (int i = 0; i <= APP_THREADS; i++) {
        pthread_join(apps[i].thread, NULL);
        assert_int_equal(atomic_load(&apps[i].bad), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_threads_many_regions),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
