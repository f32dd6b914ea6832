/* The FIFO queue (src/fifo_queue.h): order across segments, the reuse of a
 * ring's slots, the freeing of drained segments, out of memory, and one
 * owner against three takers with every call taken exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "fifo_queue.h"
#include "test_hooks.h"
#include "test_util.h"

static void call_fn(void)
{
}

static size_t segment_count(spool__fifo_queue_t *q)
{
    size_t n = 0;
    for (spool__fifo_seg_t *s = q->oldest; s != NULL; s = atomic_load(&s->next))
        n++;
    return n;
}

static void *as_arg(size_t i)
{
    return (void *)(uintptr_t)(i + 1);
}

static void test_order_across_segments(void **state)
{
    (void)state;
    spool__fifo_queue_t q;
    assert_int_equal(spool__fifo_queue_init(&q), 0);
    enum { N = 5000 }; /* beyond the first segments: new ones are linked */
    for (size_t i = 0; i < N; i++)
        assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(i)));
    size_t burst_segments = segment_count(&q);
    assert_true(burst_segments > 1);
    for (size_t i = 0; i < N; i++) {
        spool__fifo_call_t c = spool__fifo_queue_take(&q);
        assert_ptr_equal(c.fn, call_fn);
        assert_ptr_equal(c.arg, as_arg(i));
    }
    /* Empty: the next push that needs room frees the drained segments and
     * keeps the newest only. */
    size_t i = N;
    while (segment_count(&q) > 1) {
        assert_true(i < 2 * N + (size_t)q.tail->mask + 1);
        assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(i)));
        assert_ptr_equal(spool__fifo_queue_take(&q).arg, as_arg(i));
        i++;
    }
    assert_ptr_equal(q.oldest, q.tail);
    assert_ptr_equal(atomic_load(&q.head), q.tail);
    spool__fifo_queue_destroy(&q);
}

static void test_ring_slots_are_reused(void **state)
{
    (void)state;
    spool__fifo_queue_t q;
    assert_int_equal(spool__fifo_queue_init(&q), 0);
    spool__fifo_seg_t *first = q.tail;
    /* At most 10 calls queued at a time, 100000 in all: the first segment's
     * ring holds them all. */
    size_t taken = 0;
    for (size_t i = 0; i < 100000; i++) {
        assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(i)));
        if (i - taken >= 9)
            assert_ptr_equal(spool__fifo_queue_take(&q).arg, as_arg(taken++));
    }
    while (taken < 100000)
        assert_ptr_equal(spool__fifo_queue_take(&q).arg, as_arg(taken++));
    assert_ptr_equal(q.tail, first);
    assert_int_equal(segment_count(&q), 1);
    spool__fifo_queue_destroy(&q);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    spool__fifo_queue_t q;
    assert_int_equal(spool__fifo_queue_init(&q), 0);
    size_t capacity = (size_t)q.tail->mask + 1;
    spool__test_fail_deque_grow(1);
    for (size_t i = 0; i < capacity; i++)
        assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(i)));
    /* Full, and no new segment can be had: nothing pushed. */
    assert_false(spool__fifo_queue_push(&q, call_fn, as_arg(capacity)));
    assert_false(spool__fifo_queue_push(&q, call_fn, as_arg(capacity)));
    spool__test_fail_deque_grow(0);
    assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(capacity)));
    for (size_t i = 0; i <= capacity; i++)
        assert_ptr_equal(spool__fifo_queue_take(&q).arg, as_arg(i));
    spool__fifo_queue_destroy(&q);
}

/* ---- one owner, three takers ------------------------------------------- */

enum { TAKERS = 3 };

typedef struct {
    spool__fifo_queue_t queue;
    /* References not yet claimed: the owner adds one after each push
     * (release), a taker claims one by decrementing (acquire), as a
     * ticket's hand-over would order the push before the take. */
    atomic_long available;
    atomic_bool done;
    size_t calls;
    atomic_uchar *taken;
} race_t;

/* Takes with one claimed reference; checks that this thread's takes come
 * in FIFO order. */
static void take_claimed(race_t *r, size_t *last)
{
    spool__fifo_call_t c = spool__fifo_queue_take(&r->queue);
    assert_ptr_equal(c.fn, call_fn);
    size_t i = (size_t)(uintptr_t)c.arg - 1;
    assert_true(i < r->calls);
    assert_true(*last == SIZE_MAX || i > *last);
    *last = i;
    atomic_fetch_add_explicit(&r->taken[i], 1, memory_order_relaxed);
}

static bool claim(race_t *r)
{
    long n = atomic_load_explicit(&r->available, memory_order_relaxed);
    while (n > 0)
        if (atomic_compare_exchange_weak_explicit(&r->available, &n, n - 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

static void *taker(void *arg)
{
    race_t *r = arg;
    size_t last = SIZE_MAX;
    for (;;) {
        if (claim(r)) {
            take_claimed(r, &last);
        } else if (atomic_load(&r->done)) {
            if (!claim(r))
                return NULL;
            take_claimed(r, &last);
        } else {
            sched_yield();
        }
    }
}

static void test_owner_against_takers(void **state)
{
    (void)state;
#if defined(SPOOL_MEMCHECK)
    unsigned long rounds = test_iters("SPOOL_TEST_FIFO_QUEUE_ROUNDS", 2); /* memcheck: slow */
#else
    unsigned long rounds = test_iters("SPOOL_TEST_FIFO_QUEUE_ROUNDS", 20);
#endif
    for (unsigned long round = 0; round < rounds; round++) {
        race_t r;
        assert_int_equal(spool__fifo_queue_init(&r.queue), 0);
        atomic_init(&r.available, 0);
        atomic_init(&r.done, false);
        r.calls = 50000;
        r.taken = calloc(r.calls, sizeof *r.taken);
        assert_non_null(r.taken);
        pthread_t threads[TAKERS];
        for (int i = 0; i < TAKERS; i++)
            assert_int_equal(pthread_create(&threads[i], NULL, taker, &r), 0);
        /* Bursts of growing size (new segments), with the owner taking too
         * and pausing until the queue drains (freeing them), so that takers
         * race the owner's reuse of slots and its frees. */
        size_t last = SIZE_MAX;
        size_t i = 0;
        for (size_t burst = 1; i < r.calls; burst = burst * 2 % 4093) {
            for (size_t k = 0; k < burst && i < r.calls; k++, i++) {
                assert_true(spool__fifo_queue_push(&r.queue, call_fn, as_arg(i)));
                atomic_fetch_add_explicit(&r.available, 1, memory_order_release);
                if (i % 7 == 0 && claim(&r))
                    take_claimed(&r, &last);
            }
            if (burst % 3 == 0)
                while (atomic_load(&r.available) > 0)
                    sched_yield();
        }
        atomic_store(&r.done, true);
        for (int k = 0; k < TAKERS; k++)
            assert_int_equal(pthread_join(threads[k], NULL), 0);
        for (size_t k = 0; k < r.calls; k++)
            assert_int_equal(atomic_load(&r.taken[k]), 1);
        free(r.taken);
        spool__fifo_queue_destroy(&r.queue);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_across_segments),
        cmocka_unit_test(test_ring_slots_are_reused),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_owner_against_takers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
