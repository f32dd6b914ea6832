/* The split Chase-Lev deque: sequential semantics (with the push alert
 * and the demand in floor, step by step), and one owner pushing and popping
 * as join does against three thieves, every job taken exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "deque/deque.h"
#include "test_util.h"

static void test_sequential(void **state)
{
    (void)state;
    spool__deque_t d;
    assert_int_equal(spool__deque_init(&d), 0);
    enum { N = 1000 }; /* beyond the initial capacity: the buffer grows */
    static spool__job_t jobs[N];

    assert_null(spool__deque_pop(&d));
    spool__job_t *out = NULL;
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    /* That steal asked for work, but there is nothing private to publish;
     * publishing nothing clears the request. */
    assert_true(spool__deque_demanded(&d));
    assert_true(spool__deque_wants_publish(&d));
    bool was_empty = false;
    assert_int_equal(spool__deque_publish(&d, &was_empty), 0);

    /* Pushed jobs are private: thieves find nothing and ask for them. */
    for (int i = 0; i < N; i++)
        assert_true(spool__deque_push(&d, &jobs[i]));
    assert_int_equal(spool__deque_len(&d), N);
    assert_false(spool__deque_demanded(&d));
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    assert_true(spool__deque_demanded(&d));
    assert_true(spool__deque_wants_publish(&d));
    assert_int_equal(spool__deque_publish(&d, &was_empty), N);
    assert_true(was_empty);
    assert_false(spool__deque_demanded(&d));
    /* Thieves take the oldest, the owner the newest. */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[0]);
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[1]);
    /* With public jobs left, a new push stays private and is popped first;
     * a thief still gets the oldest public job. */
    assert_false(spool__deque_wants_publish(&d));
    static spool__job_t extra[3];
    for (int i = 0; i < 3; i++)
        assert_true(spool__deque_push(&d, &extra[i]));
    assert_false(spool__deque_wants_publish(&d));
    assert_ptr_equal(spool__deque_pop(&d), &extra[2]);
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[2]);
    assert_false(spool__deque_demanded(&d));
    assert_int_equal(spool__deque_publish(&d, &was_empty), 2);
    assert_false(was_empty);
    assert_int_equal(spool__deque_publish(&d, &was_empty), 0);
    assert_ptr_equal(spool__deque_pop(&d), &extra[1]);
    assert_ptr_equal(spool__deque_pop(&d), &extra[0]);
    for (int i = N - 1; i >= 3; i--)
        assert_ptr_equal(spool__deque_pop(&d), &jobs[i]);
    assert_null(spool__deque_pop(&d));
    assert_int_equal(spool__deque_len(&d), 0);
    /* Nothing public left: the next push wants publishing. */
    assert_true(spool__deque_push(&d, &jobs[0]));
    assert_true(spool__deque_wants_publish(&d));
    assert_ptr_equal(spool__deque_pop(&d), &jobs[0]);

    /* Reusable after emptying, and across wrap-around of the ring. */
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 300; i++)
            assert_true(spool__deque_push_public(&d, &jobs[i]));
        for (int i = 0; i < 300; i++) {
            assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
            assert_ptr_equal(out, &jobs[i]);
        }
        assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    }
    spool__deque_destroy(&d);
}

/* Rule 1 (deque.md) without a look at top: whoever takes the last public
 * job raises the alert in limit, the fast push (spool__deque_push_private)
 * then fails, and the slow push takes the alert back and publishes. */
static int64_t slow_push(spool__deque_t *d, spool__job_t *job)
{
    assert_true(spool__deque_push(d, job));
    if (!spool__deque_wants_publish(d))
        return 0;
    bool was_empty;
    int64_t published = spool__deque_publish(d, &was_empty);
    assert_true(was_empty);
    return published;
}

static void test_alert_after_last_public_job(void **state)
{
    (void)state;
    spool__deque_t d;
    assert_int_equal(spool__deque_init(&d), 0);
    static spool__job_t jobs[6];
    spool__job_t *out = NULL;

    /* A new deque has no public job: the first push is slow and public. */
    assert_false(spool__deque_push_private(&d, &jobs[0]));
    assert_int_equal(spool__deque_len(&d), 0);
    assert_int_equal(slow_push(&d, &jobs[0]), 1);
    /* A public job is left: the next push is fast and private. */
    assert_true(spool__deque_push_private(&d, &jobs[1]));
    assert_false(spool__deque_wants_publish(&d));

    /* A thief takes the last public job: the next fast push fails with
     * nothing pushed, although no thief asked (demand). */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[0]);
    assert_false(spool__deque_demanded(&d));
    assert_false(spool__deque_push_private(&d, &jobs[2]));
    assert_int_equal(spool__deque_len(&d), 1);
    assert_int_equal(slow_push(&d, &jobs[2]), 2); /* jobs 1 and 2 */
    /* The alert was taken back, public jobs are left: fast again. */
    assert_true(spool__deque_push_private(&d, &jobs[3]));

    /* A thief that takes a job with more public ones left raises none. */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[1]);
    assert_true(spool__deque_push_private(&d, &jobs[4]));

    /* The owner's own pop of the last public job raises it too. */
    assert_ptr_equal(spool__deque_pop(&d), &jobs[4]);
    assert_ptr_equal(spool__deque_pop(&d), &jobs[3]);
    assert_ptr_equal(spool__deque_pop(&d), &jobs[2]); /* public, the last */
    assert_false(spool__deque_push_private(&d, &jobs[5]));
    assert_int_equal(slow_push(&d, &jobs[5]), 1);
    assert_ptr_equal(spool__deque_pop(&d), &jobs[5]);
    assert_null(spool__deque_pop(&d));
    spool__deque_destroy(&d);
}

/* The fast paths' window (deque.md): the fast push and pop
 * reach a slot through base, valid within one lap of the buffer, so the
 * fast push fails at the lap's end and the fast pop below its start, and
 * the slow paths move the window.  Thieves index the buffer with the mask:
 * what the fast push wrote must be where they look. */
static bool join_push(spool__deque_t *d, spool__job_t *job)
{
    if (spool__deque_push_private(d, job))
        return true;
    assert_true(spool__deque_push(d, job));
    if (spool__deque_wants_publish(d)) {
        bool was_empty;
        (void)spool__deque_publish(d, &was_empty);
    }
    return false;
}

static spool__job_t *join_pop(spool__deque_t *d, bool *fast)
{
    spool__job_t *job = spool__deque_pop_private(d);
    *fast = job != NULL;
    return job != NULL ? job : spool__deque_pop(d);
}

static void test_window_moves_with_bottom(void **state)
{
    (void)state;
    spool__deque_t d;
    assert_int_equal(spool__deque_init(&d), 0);
    enum { CAP = 256, START = 200, N = 120 }; /* the lap ends at index CAP */
    static spool__job_t jobs[N], pad[START];
    spool__job_t *out = NULL;
    /* Move top to START: public jobs pushed and stolen. */
    for (int i = 0; i < START; i++)
        assert_true(spool__deque_push_public(&d, &pad[i]));
    for (int i = 0; i < START; i++)
        assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);

    for (int round = 0; round < 2; round++) {
        assert_int_equal(spool__deque_len(&d), 0);
        int64_t start = atomic_load(&d.top);
        int64_t lap_end = (start / CAP + 1) * CAP;
        assert_true(start + N > lap_end);
        /* Index start + i: the first push is slow (no public job left, it
         * publishes), then fast ones until the lap's end. */
        for (int i = 0; i < N; i++) {
            bool fast = join_push(&d, &jobs[i]);
            assert_true(fast == (i != 0 && start + i != lap_end));
        }
        /* Back down: fast, except the pop below the lap's start (the
         * window moves down) and the public job at the bottom. */
        for (int i = N - 1; i >= 1; i--) {
            bool fast;
            assert_ptr_equal(join_pop(&d, &fast), &jobs[i]);
            assert_true(fast == (start + i != lap_end - 1));
        }
        /* The window moved down with the alert in limit: the next push is
         * slow and sets the bound.  Across the lap's start and back: slow
         * at each crossing. */
        bool fast;
        int top_index = (int)(lap_end - start);
        for (int i = 1; i < top_index; i++)
            assert_true(join_push(&d, &jobs[i]) == (i != 1));
        assert_false(join_push(&d, &jobs[top_index]));
        assert_ptr_equal(join_pop(&d, &fast), &jobs[top_index]);
        assert_true(fast);
        assert_ptr_equal(join_pop(&d, &fast), &jobs[top_index - 1]);
        assert_false(fast);
        assert_false(join_push(&d, &jobs[top_index - 1])); /* back in the lower lap */
        /* A thief finds each job where the fast push put it. */
        assert_true(spool__deque_push(&d, &jobs[top_index]));
        bool was_empty;
        assert_int_equal(spool__deque_publish(&d, &was_empty), top_index);
        for (int i = 0; i <= top_index; i++) {
            assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
            assert_ptr_equal(out, &jobs[i]);
        }
        assert_null(spool__deque_pop(&d));
        /* Round 2 starts late in the next lap, and its pushes wrap the
         * ring. */
        for (int i = 0; i < CAP - N; i++) {
            assert_true(spool__deque_push_public(&d, &pad[0]));
            assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
        }
    }
    spool__deque_destroy(&d);
}

/* Rule 2 (deque.md) without a second load: a thief's demand is stored in
 * floor, so the fast pop (spool__deque_pop_private) fails until the owner
 * publishes, which serves it. */
static void test_demand_stops_the_fast_pop(void **state)
{
    (void)state;
    spool__deque_t d;
    assert_int_equal(spool__deque_init(&d), 0);
    static spool__job_t jobs[4];
    spool__job_t *out = NULL;
    bool was_empty;
    assert_int_equal(slow_push(&d, &jobs[0]), 1);
    assert_true(spool__deque_push_private(&d, &jobs[1]));
    assert_true(spool__deque_push_private(&d, &jobs[2]));
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    /* The public part is empty: a thief asks. */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    assert_true(spool__deque_demanded(&d));
    assert_null(spool__deque_pop_private(&d));
    assert_int_equal(spool__deque_len(&d), 2); /* nothing popped */
    /* A second asking thief changes nothing. */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    assert_int_equal(spool__deque_publish(&d, &was_empty), 2);
    assert_true(was_empty);
    assert_false(spool__deque_demanded(&d));
    /* Served; jobs 1 and 2 are public now, job 3 private. */
    assert_int_equal(slow_push(&d, &jobs[3]), 0);
    assert_ptr_equal(spool__deque_pop_private(&d), &jobs[3]);
    assert_null(spool__deque_pop_private(&d)); /* job 2 is public */
    /* A publication for another reason (rule 1 here) serves it too. */
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[1]);
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[2]);
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    assert_true(spool__deque_demanded(&d));
    assert_int_equal(slow_push(&d, &jobs[2]), 1);
    assert_false(spool__deque_demanded(&d));
    /* And a thief can ask again. */
    assert_true(spool__deque_push_private(&d, &jobs[1]));
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_SUCCESS);
    assert_ptr_equal(out, &jobs[2]);
    assert_int_equal(spool__deque_steal(&d, &out), SPOOL__STEAL_EMPTY);
    assert_true(spool__deque_demanded(&d));
    assert_null(spool__deque_pop_private(&d));
    assert_ptr_equal(spool__deque_pop(&d), &jobs[1]);
    spool__deque_destroy(&d);
}

typedef struct concurrent {
    spool__deque_t deque;
    spool__job_t *jobs;
    atomic_uint *taken; /* per job: how many times it was taken */
    atomic_bool owner_done;
    unsigned long n;
} concurrent_t;

static void *thief(void *arg)
{
    concurrent_t *c = arg;
    for (;;) {
        /* Read done before stealing: once done is seen, a steal that comes
         * back empty means the deque stays empty. */
        bool done = atomic_load(&c->owner_done);
        spool__job_t *job;
        spool__steal_t r = spool__deque_steal(&c->deque, &job);
        if (r == SPOOL__STEAL_SUCCESS)
            atomic_fetch_add(&c->taken[job - c->jobs], 1);
        else if (r == SPOOL__STEAL_EMPTY && done)
            return NULL;
    }
}

/* The owner's side as join does it (the fast private push and pop, else
 * spool__worker_push and _pop): publish when a thief asked or no public job
 * is left. */
static void owner_push(concurrent_t *c, spool__job_t *job)
{
    if (spool__deque_push_private(&c->deque, job))
        return;
    assert_true(spool__deque_push(&c->deque, job));
    bool was_empty;
    if (spool__deque_wants_publish(&c->deque))
        (void)spool__deque_publish(&c->deque, &was_empty);
}

static spool__job_t *owner_pop(concurrent_t *c)
{
    spool__job_t *job = spool__deque_pop_private(&c->deque);
    if (job != NULL)
        return job;
    job = spool__deque_pop(&c->deque);
    bool was_empty;
    if (spool__deque_demanded(&c->deque))
        (void)spool__deque_publish(&c->deque, &was_empty);
    return job;
}

static void test_owner_against_three_thieves(void **state)
{
    (void)state;
    concurrent_t c;
    c.n = test_iters("SPOOL_TEST_DEQUE_ITEMS", 400000);
    c.jobs = calloc(c.n, sizeof *c.jobs);
    c.taken = calloc(c.n, sizeof *c.taken);
    assert_non_null(c.jobs);
    assert_non_null(c.taken);
    atomic_init(&c.owner_done, false);
    assert_int_equal(spool__deque_init(&c.deque), 0);

    pthread_t thieves[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&thieves[i], NULL, thief, &c), 0);

    /* The owner pushes in bursts and pops part of each burst back, so
     * that pops race steals on the last element and the buffer grows. */
    unsigned long next = 0;
    unsigned seed = 12345;
    while (next < c.n) {
        seed = seed * 1103515245u + 12345u;
        unsigned burst = 1 + (seed >> 16) % 600;
        for (unsigned i = 0; i < burst && next < c.n; i++)
            owner_push(&c, &c.jobs[next++]);
        unsigned pops = (seed >> 8) % (burst + 1);
        for (unsigned i = 0; i < pops; i++) {
            spool__job_t *job = owner_pop(&c);
            if (job == NULL)
                break;
            atomic_fetch_add(&c.taken[job - c.jobs], 1);
        }
    }
    spool__job_t *job;
    while ((job = owner_pop(&c)) != NULL)
        atomic_fetch_add(&c.taken[job - c.jobs], 1);
    atomic_store(&c.owner_done, true);
    for (int i = 0; i < 3; i++)
        pthread_join(thieves[i], NULL);

    unsigned long lost = 0, duplicated = 0;
    for (unsigned long i = 0; i < c.n; i++) {
        unsigned t = atomic_load(&c.taken[i]);
        lost += t == 0;
        duplicated += t > 1;
    }
    assert_int_equal(lost, 0);
    assert_int_equal(duplicated, 0);
    spool__deque_destroy(&c.deque);
    free(c.jobs);
    free(c.taken);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequential),
        cmocka_unit_test(test_alert_after_last_public_job),
        cmocka_unit_test(test_window_moves_with_bottom),
        cmocka_unit_test(test_demand_stops_the_fast_pop),
        cmocka_unit_test(test_owner_against_three_thieves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
