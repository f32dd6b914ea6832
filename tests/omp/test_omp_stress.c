/* libspool-omp under load: several application threads open short
 * regions at once (loops, singles, barriers, criticals, nested regions;
 * then a random mix of tasks, dependences, taskgroups and taskloops),
 * beside threads that run spool loops in the same pool; every result is
 * checked.  Counts: SPOOL_TEST_OMP_STRESS_ROUNDS (per thread),
 * SPOOL_TEST_OMP_TASK_ROUNDS, SPOOL_TEST_SCALE. */
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

/* APP_THREADS application threads running user, and one running spool
 * loops, rounds each; every round's result is checked. */
static void run_apps(void *(*user)(void *), unsigned long rounds)
{
    app_t apps[APP_THREADS + 1];
    for (int i = 0; i <= APP_THREADS; i++) {
        apps[i] = (app_t){.rounds = rounds, .id = i};
        atomic_init(&apps[i].bad, 0);
        assert_int_equal(
            pthread_create(&apps[i].thread, NULL, i < APP_THREADS ? user : spool_user, &apps[i]),
            0);
    }
    for (int i = 0; i <= APP_THREADS; i++) {
        pthread_join(apps[i].thread, NULL);
        assert_int_equal(atomic_load(&apps[i].bad), 0);
    }
}

static void test_many_threads_many_regions(void **state)
{
    (void)state;
    run_apps(omp_user, test_iters("SPOOL_TEST_OMP_STRESS_ROUNDS", 20000));
}

/* One round of the task mix, of kind k, in a team of nt threads: false if
 * a result is wrong. */
static bool task_round(unsigned k, int nt, unsigned seed)
{
    switch (k % 4) {
    case 0: { /* a dependence chain through one variable, from a single */
        int x = 0, order_bad = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
        for (int i = 0; i < 40; i++) {
            if (i % 3 == 0) {
#pragma omp task depend(inout : x) shared(x, order_bad) firstprivate(i)
                {
                    if (x != i / 3)
                        order_bad = 1;
                    x++;
                }
            } else {
#pragma omp task depend(in : x) shared(x, order_bad) firstprivate(i)
                if (x != i / 3 + 1)
                    order_bad = 1;
            }
        }
        return !order_bad && x == 14;
    }
    case 1: { /* every thread makes tasks that make tasks; taskwait */
        atomic_long sum = 0;
        int team = 0;
#pragma omp parallel num_threads(nt)
        {
#pragma omp single
            team = omp_get_num_threads();
            for (int i = 0; i < 50; i++) {
#pragma omp task shared(sum) firstprivate(i)
                {
#pragma omp task shared(sum) firstprivate(i)
                    atomic_fetch_add(&sum, i);
                }
            }
#pragma omp taskgroup
            {
#pragma omp task shared(sum)
                atomic_fetch_add(&sum, 1000);
            }
        }
        /* The team may be smaller than asked (dyn-var: the idle workers). */
        return atomic_load(&sum) == (long)team * (1225 + 1000);
    }
    case 2: { /* a taskloop over an array */
        int hits[257] = {0};
        unsigned grain = seed % 7 + 1;
#pragma omp parallel num_threads(nt)
#pragma omp single
#pragma omp taskloop grainsize(grain) shared(hits)
        for (int i = 0; i < 257; i++)
            hits[i]++;
        for (int i = 0; i < 257; i++)
            if (hits[i] != 1)
                return false;
        return true;
    }
    default: { /* a diamond of dependences, then taskwait */
        int a = 0, b = 0, c = 0, d = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
        {
#pragma omp task depend(out : a) shared(a)
            a = 1;
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
            b = a + 1;
#pragma omp task depend(in : a) depend(out : c) shared(a, c)
            c = a + 2;
#pragma omp task depend(in : b, c) shared(b, c, d)
            d = b + c;
#pragma omp taskwait
        }
        return d == 5;
    }
    }
}

static void *task_user(void *p)
{
    app_t *a = p;
    unsigned seed = 12345u + (unsigned)a->id * 7919u;
    for (unsigned long r = 0; r < a->rounds; r++) {
        seed = seed * 1103515245u + 12345u;
        if (!task_round(seed >> 16, (int)((seed >> 8) % 4) + 1, seed))
            atomic_fetch_add(&a->bad, 1);
    }
    return NULL;
}

static void test_tasks_from_many_threads(void **state)
{
    (void)state;
    run_apps(task_user, test_iters("SPOOL_TEST_OMP_TASK_ROUNDS", 3000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_threads_many_regions),
        cmocka_unit_test(test_tasks_from_many_threads),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
