/* The FIFO queue (src/queue/fifo_queue.h): order across segments, the reuse of a
 * ring's slots, the freeing of drained segments, out of memory, batch
 * takes that stop at a segment's end, and one owner against three takers
 * (some taking batches) with every call taken exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "queue/fifo_queue.h"
#include "platform/test_hooks.h"
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

/* A batch take claims up to its references' worth of front calls at once,
 * in order, and stops where the front's segment ends. */
static void test_batch_take_stops_at_segment_end(void **state)
{
    (void)state;
    spool__fifo_queue_t q;
    assert_int_equal(spool__fifo_queue_init(&q), 0);
    size_t first = (size_t)q.tail->mask + 1;
    size_t calls = first + 6; /* the last 6 in a second segment */
    for (size_t i = 0; i < calls; i++)
        assert_true(spool__fifo_queue_push(&q, call_fn, as_arg(i)));
    assert_int_equal(segment_count(&q), 2);
    size_t next = 0;
    while (next < calls) {
        size_t max = calls - next < 10 ? calls - next : 10;
        spool__fifo_call_t out[10];
        size_t k = spool__fifo_queue_take_n(&q, out, max);
        /* All it may take, except across the first segment's end. */
        size_t want = next < first && next + max > first ? first - next : max;
        assert_int_equal(k, want);
        for (size_t i = 0; i < k; i++) {
            assert_ptr_equal(out[i].fn, call_fn);
            assert_ptr_equal(out[i].arg, as_arg(next + i));
        }
        next += k;
        assert_int_equal(atomic_load(&q.front), (int64_t)next);
    }
    spool__fifo_queue_destroy(&q);
}

/* ---- one owner, three takers ------------------------------------------- */

enum { TAKERS = 3, BATCH = 16 };

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

typedef struct {
    race_t *race;
    int index;
} taker_t;

/* Takes with n claimed references (one take, or batches of up to n);
 * checks that this thread's takes come in FIFO order. */
static void take_claimed(race_t *r, size_t n, size_t *last)
{
    while (n > 0) {
        spool__fifo_call_t out[BATCH];
        size_t k = 1;
        if (n == 1)
            out[0] = spool__fifo_queue_take(&r->queue);
        else
            k = spool__fifo_queue_take_n(&r->queue, out, n);
        assert_true(k >= 1 && k <= n);
        for (size_t j = 0; j < k; j++) {
            assert_ptr_equal(out[j].fn, call_fn);
            size_t i = (size_t)(uintptr_t)out[j].arg - 1;
            assert_true(i < r->calls);
            assert_true(*last == SIZE_MAX || i > *last);
            *last = i;
            atomic_fetch_add_explicit(&r->taken[i], 1, memory_order_relaxed);
        }
        n -= k;
    }
}

/* Claims up to max references; returns how many (0: none available). */
static size_t claim(race_t *r, size_t max)
{
    long n = atomic_load_explicit(&r->available, memory_order_relaxed);
    while (n > 0) {
        long k = n < (long)max ? n : (long)max;
        if (atomic_compare_exchange_weak_explicit(&r->available, &n, n - k, memory_order_acquire,
                                                  memory_order_relaxed))
            return (size_t)k;
    }
    return 0;
}

/* Taker 0 takes one call at a time, the others batches of 2 to BATCH. */
static void *taker(void *arg)
{
    taker_t *me = arg;
    race_t *r = me->race;
    size_t last = SIZE_MAX, n, round = 0;
    for (;;) {
        size_t max = me->index == 0 ? 1 : 2 + round++ % (BATCH - 1);
        if ((n = claim(r, max)) > 0) {
            take_claimed(r, n, &last);
        } else if (atomic_load(&r->done)) {
            if ((n = claim(r, max)) == 0)
                return NULL;
            take_claimed(r, n, &last);
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
        taker_t takers[TAKERS];
        for (int i = 0; i < TAKERS; i++) {
            takers[i] = (taker_t){&r, i};
            assert_int_equal(pthread_create(&threads[i], NULL, taker, &takers[i]), 0);
        }
        /* Bursts of growing size (new segments), with the owner taking too
         * and pausing until the queue drains (freeing them), so that takers
         * race the owner's reuse of slots and its frees. */
        size_t last = SIZE_MAX;
        size_t i = 0;
        for (size_t burst = 1; i < r.calls; burst = burst * 2 % 4093) {
            for (size_t k = 0; k < burst && i < r.calls; k++, i++) {
                assert_true(spool__fifo_queue_push(&r.queue, call_fn, as_arg(i)));
                atomic_fetch_add_explicit(&r.available, 1, memory_order_release);
                size_t n;
                if (i % 7 == 0 && (n = claim(&r, 1 + i % 3)) > 0)
                    take_claimed(&r, n, &last);
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
        cmocka_unit_test(test_batch_take_stops_at_segment_end),
        cmocka_unit_test(test_owner_against_takers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
