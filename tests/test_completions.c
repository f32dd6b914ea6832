/*
 * Completion queues (spool_completions_*): every tag posted exactly once,
 * after its task ran, with 8 threads submitting; the descriptor readable
 * exactly while the queue holds tags; waits with and without a timeout;
 * a tag in the queue once its task's wait returns; bad input.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "spool.h"
#include "test_util.h"

typedef struct job {
    atomic_int runs;
} job_t;

static void job_run(void *arg)
{
    atomic_fetch_add(&((job_t *)arg)->runs, 1);
}

enum { SUBMITTERS = 8 };

typedef struct submitter {
    spool_completions_t *cq;
    unsigned id;
    unsigned long n;
    job_t *jobs;
} submitter_t;

static void *submit_many(void *arg)
{
    submitter_t *s = arg;
    for (unsigned long i = 0; i < s->n; i++) {
        spool_task_t *t;
        assert_int_equal(spool_task_create(NULL, job_run, &s->jobs[i], &t), 0);
        assert_int_equal(spool_task_notify(t, s->cq, &s->jobs[i]), 0);
        assert_int_equal(spool_task_submit(t), 0);
        spool_task_release(t); /* submitted: it still runs */
    }
    return NULL;
}

static void test_each_tag_posted_once_with_8_submitters(void **state)
{
    (void)state;
    unsigned long per = test_iters("SPOOL_TEST_TASKS_PER_SUBMITTER", 2000);
    spool_completions_t *cq;
    assert_int_equal(spool_completions_create(&cq), 0);
    submitter_t subs[SUBMITTERS];
    pthread_t threads[SUBMITTERS];
    job_t *jobs = calloc(SUBMITTERS * per, sizeof *jobs);
    assert_non_null(jobs);
    for (unsigned i = 0; i < SUBMITTERS; i++) {
        subs[i] = (submitter_t){cq, i, per, jobs + i * per};
        assert_int_equal(pthread_create(&threads[i], NULL, submit_many, &subs[i]), 0);
    }
    unsigned char *seen = calloc(SUBMITTERS * per, 1);
    unsigned long total = 0;
    void *tags[64];
    while (total < SUBMITTERS * per) {
        size_t n = spool_completions_wait(cq, tags, 64, 10000);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            job_t *job = tags[i];
            size_t k = (size_t)(job - jobs);
            assert_true(k < SUBMITTERS * per);
            assert_int_equal(seen[k], 0);
            seen[k] = 1;
            assert_int_equal(atomic_load(&job->runs), 1); /* ran before its tag */
        }
        total += n;
    }
    for (unsigned i = 0; i < SUBMITTERS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(spool_completions_take(cq, tags, 64), 0);
    assert_int_equal(spool_completions_destroy(cq), 0);
    free(seen);
    free(jobs);
}

static int readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, 0);
    assert_true(r >= 0);
    return r > 0 && (p.revents & POLLIN) != 0;
}

static void test_descriptor_follows_the_queue(void **state)
{
    (void)state;
    spool_completions_t *cq;
    assert_int_equal(spool_completions_create(&cq), 0);
    int fd = spool_completions_fd(cq);
    assert_true(fd >= 0);
    assert_int_equal(spool_completions_fd(NULL), -1);
    assert_false(readable(fd));
    void *tags[4];
    /* A wait with a timeout and nothing coming returns 0 after about it. */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(spool_completions_wait(cq, tags, 4, 50), 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double waited = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    assert_true(waited >= 0.045);
    assert_int_equal(spool_completions_wait(cq, tags, 4, 0), 0);
    spool_task_t *t[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(spool_task_create(NULL, test_nothing, NULL, &t[i]), 0);
        assert_int_equal(spool_task_notify(t[i], cq, (void *)(uintptr_t)(i + 1)), 0);
    }
    assert_int_equal(spool_task_submit(t[0]), 0);
    assert_int_equal(spool_task_wait(t[0]), 0);
    assert_true(readable(fd));
    assert_int_equal(spool_task_submit(t[1]), 0);
    assert_int_equal(spool_task_wait(t[1]), 0);
    assert_int_equal(spool_completions_take(cq, tags, 1), 1); /* one left */
    assert_true(readable(fd));
    assert_int_equal(spool_completions_take(cq, tags, 4), 1);
    assert_false(readable(fd));
    assert_int_equal(spool_completions_take(cq, tags, 4), 0);
    /* A blocked wait is woken by a later post. */
    assert_int_equal(spool_task_submit(t[2]), 0);
    assert_int_equal(spool_completions_wait(cq, tags, 4, -1), 1);
    assert_ptr_equal(tags[0], (void *)3);
    assert_false(readable(fd));
    for (int i = 0; i < 3; i++)
        spool_task_release(t[i]);
    assert_int_equal(spool_completions_take(NULL, tags, 4), 0);
    assert_int_equal(spool_completions_wait(cq, NULL, 4, 0), 0);
    assert_int_equal(spool_completions_destroy(cq), 0);
    assert_int_equal(spool_completions_destroy(NULL), EINVAL);
    assert_int_equal(spool_completions_create(NULL), EINVAL);
    assert_int_equal(spool_task_notify(NULL, NULL, NULL), EINVAL);
}

/* A wait that returns has its task's tag in the queue (task.md, K7): the
 * waiter spins until the task reads done, so that its wait lands in the
 * finish, then takes from the queue at once. */
static void test_tag_posted_when_wait_returns(void **state)
{
    (void)state;
#if defined(SPOOL_MEMCHECK)
    /* memcheck runs one thread at a time: a spinning waiter holds it for a
     * whole time slice per round. */
    unsigned long rounds = test_iters("SPOOL_TEST_WAIT_TAG_ROUNDS", 200);
#define WAIT_TAG_POLLS_BEFORE_YIELD 0
#elif defined(__SANITIZE_THREAD__) || defined(TEST_UTIL_TSAN)
    /* Under ThreadSanitizer a round is slow, and a waiter that spins
     * without yielding on a loaded machine holds up the worker it waits
     * for a time slice at a time. */
    unsigned long rounds = test_iters("SPOOL_TEST_WAIT_TAG_ROUNDS", 2000);
#define WAIT_TAG_POLLS_BEFORE_YIELD 0
#else
    unsigned long rounds = test_iters("SPOOL_TEST_WAIT_TAG_ROUNDS", 20000);
    /* Polls without yielding while the worker likely runs the task (the
     * window K7 is about is short), then yields at each poll: on a loaded
     * machine the worker may not run until the waiter gives up its CPU. */
#define WAIT_TAG_POLLS_BEFORE_YIELD 100000
#endif
    spool_pool_t *pool = test_pool(2);
    spool_completions_t *cq;
    assert_int_equal(spool_completions_create(&cq), 0);
    job_t job = {0};
    unsigned long missing = 0, done = 0;
    /* At most 30 s of rounds: on a loaded machine a round costs the
     * worker's time slice and then the waiter's. */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (; done < rounds && test_ms_since(&start) < 30000; done++) {
        spool_task_t *t;
        assert_int_equal(spool_task_create(pool, job_run, &job, &t), 0);
        assert_int_equal(spool_task_notify(t, cq, &job), 0);
        assert_int_equal(spool_task_submit(t), 0);
        for (unsigned long polls = 0; !spool_task_done(t); polls++)
            if (polls >= WAIT_TAG_POLLS_BEFORE_YIELD)
                sched_yield();
        assert_int_equal(spool_task_wait(t), 0);
        void *tag = NULL;
        size_t n = spool_completions_take(cq, &tag, 1);
        missing += n == 0;
        if (n == 0) /* drain the late tag before the next round */
            assert_int_equal(spool_completions_wait(cq, &tag, 1, -1), 1);
        assert_ptr_equal(tag, &job);
        spool_task_release(t);
    }
    assert_int_equal(missing, 0);
    assert_int_equal(atomic_load(&job.runs), (int)done);
    assert_int_equal(spool_completions_destroy(cq), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_tag_posted_once_with_8_submitters),
        cmocka_unit_test(test_descriptor_follows_the_queue),
        cmocka_unit_test(test_tag_posted_when_wait_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
