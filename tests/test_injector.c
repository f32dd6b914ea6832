/* The injector: FIFO order, growth, and several producers and consumers
 * with nothing lost or duplicated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "queue/injector.h"
#include "test_util.h"

static void test_fifo_and_growth(void **state)
{
    (void)state;
    spool__injector_t inj;
    assert_int_equal(spool__injector_init(&inj), 0);
    assert_true(spool__injector_is_empty(&inj));
    assert_null(spool__injector_pop(&inj));
    enum { N = 1000 };
    static spool__job_t jobs[N];
    bool was_empty;
    /* Interleave so that the ring wraps before it grows. */
    for (int i = 0; i < 40; i++)
        assert_int_equal(spool__injector_push(&inj, &jobs[i], &was_empty), 0);
    for (int i = 0; i < 30; i++)
        assert_ptr_equal(spool__injector_pop(&inj), &jobs[i]);
    for (int i = 40; i < N; i++) {
        assert_int_equal(spool__injector_push(&inj, &jobs[i], &was_empty), 0);
        assert_false(was_empty);
    }
    for (int i = 30; i < N; i++)
        assert_ptr_equal(spool__injector_pop(&inj), &jobs[i]);
    assert_true(spool__injector_is_empty(&inj));
    assert_int_equal(spool__injector_push(&inj, &jobs[0], &was_empty), 0);
    assert_true(was_empty);
    assert_ptr_equal(spool__injector_pop(&inj), &jobs[0]);
    spool__injector_destroy(&inj);
}

enum { PRODUCERS = 4, CONSUMERS = 4 };

typedef struct mpmc {
    spool__injector_t inj;
    spool__job_t *jobs;
    atomic_uint *taken;
    unsigned long per_producer;
    atomic_uint producers_left;
    atomic_ulong next_producer;
} mpmc_t;

static void *producer(void *arg)
{
    mpmc_t *m = arg;
    unsigned long p = atomic_fetch_add(&m->next_producer, 1);
    bool was_empty;
    for (unsigned long i = 0; i < m->per_producer; i++) {
        int err = spool__injector_push(&m->inj, &m->jobs[p * m->per_producer + i], &was_empty);
        if (err != 0)
            abort();
    }
    atomic_fetch_sub(&m->producers_left, 1);
    return NULL;
}

static void *consumer(void *arg)
{
    mpmc_t *m = arg;
    for (;;) {
        bool done = atomic_load(&m->producers_left) == 0;
        spool__job_t *job = spool__injector_pop(&m->inj);
        if (job != NULL)
            atomic_fetch_add(&m->taken[job - m->jobs], 1);
        else if (done)
            return NULL;
    }
}

static void test_producers_and_consumers(void **state)
{
    (void)state;
    mpmc_t m;
    m.per_producer = test_iters("SPOOL_TEST_INJECTOR_ITEMS", 100000);
    unsigned long n = m.per_producer * PRODUCERS;
    m.jobs = calloc(n, sizeof *m.jobs);
    m.taken = calloc(n, sizeof *m.taken);
    assert_non_null(m.jobs);
    assert_non_null(m.taken);
    atomic_init(&m.producers_left, PRODUCERS);
    atomic_init(&m.next_producer, 0);
    assert_int_equal(spool__injector_init(&m.inj), 0);
    pthread_t threads[PRODUCERS + CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, consumer, &m), 0);
    for (int i = 0; i < PRODUCERS; i++)
        assert_int_equal(pthread_create(&threads[CONSUMERS + i], NULL, producer, &m), 0);
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
        pthread_join(threads[i], NULL);
    unsigned long lost = 0, duplicated = 0;
    for (unsigned long i = 0; i < n; i++) {
        lost += atomic_load(&m.taken[i]) == 0;
        duplicated += atomic_load(&m.taken[i]) > 1;
    }
    assert_int_equal(lost, 0);
    assert_int_equal(duplicated, 0);
    assert_true(spool__injector_is_empty(&m.inj));
    spool__injector_destroy(&m.inj);
    free(m.jobs);
    free(m.taken);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_and_growth),
        cmocka_unit_test(test_producers_and_consumers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
