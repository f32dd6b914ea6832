/* The frame deque (src/frames/frames.h, frames.md) alone: its memory, the
 * head scan, the parts and asks of a deque thieves see and of one they do
 * not, the overflow cell, F5's reset, and threads that steal from an owner
 * that spawns and syncs at random (SPOOL_TEST_FRAMES_ROUNDS rounds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "frames/frames.h"
#include "sleep/latch.h"
#include "test_util.h"

static void entry(struct spool__frame_hdr_v4 *frame, struct spool__cell_v4 *head)
{
    (void)frame;
    (void)head;
}

/* A test frame: the header and one word, the argument or the result. */
typedef struct frame {
    struct spool__frame_hdr_v4 hdr;
    long word;
} frame_t;

static frame_t *frame_of(spool__frames_t *d, int64_t i)
{
    return (frame_t *)(void *)spool__frames_cell(d, i);
}

/* The owner's spawn and sync, as spool_typed.h does them (the fast tests
 * through the cell's address, as the header finds them). */
static void spawn(spool__frames_t *d, int64_t *head, long word)
{
    struct spool__cell_v4 *c = spool__frames_cell(d, *head);
    frame_t *f = (frame_t *)(void *)c;
    f->hdr.steal = entry;
    f->word = word;
    (*head)++;
    if (!spool__frames_spawn_fast_v4(spool__frames_bounds_v4(c), c)) {
        bool was_empty;
        (void)spool__frames_spawned_slow(d, *head - 1, &was_empty);
    }
}

/* Returns the frame's word if the owner took it back, else -1 - (the
 * result the thief wrote), once the thief's latch is set. */
static long sync_frame(spool__frames_t *d, int64_t *head)
{
    (*head)--;
    struct spool__cell_v4 *c = spool__frames_cell(d, *head);
    frame_t *f = (frame_t *)(void *)c;
    int64_t n;
    bool was_empty;
    if (spool__frames_sync_fast_v4(spool__frames_bounds_v4(c), c) ||
        spool__frames_popped_slow(d, *head, &n, &was_empty) == SPOOL__FRAMES_MINE) {
        f->hdr.steal = NULL;
        return f->word;
    }
    while (!spool__core_latch_probe((spool__core_latch_t *)(void *)spool__frames_state(c)))
        spool__cpu_relax();
    long r = f->word;
    spool__frames_stolen_done(d, *head);
    return -1 - r;
}

/* A thief's take and run: the result is the argument times 10. */
static bool steal_one(spool__frames_t *d, long *arg)
{
    int64_t i;
    spool__frames_steal_t r;
    while ((r = spool__frames_steal(d, &i, NULL, NULL)) == SPOOL__FRAMES_RETRY) {
    }
    if (r != SPOOL__FRAMES_TAKEN)
        return false;
    frame_t *f = frame_of(d, i);
    assert_ptr_equal(f->hdr.steal, entry);
    *arg = f->word;
    f->word *= 10;
    (void)spool__core_latch_set((spool__core_latch_t *)(void *)spool__frames_state(spool__frames_cell(d, i)));
    return true;
}

static uint64_t ts_of(spool__frames_t *d)
{
    return atomic_load_explicit(&d->ts, memory_order_relaxed);
}

static void test_memory(void **state)
{
    (void)state;
    spool__frames_t *d = spool__frames_create(NULL, false);
    assert_non_null(d);
    assert_int_equal((uintptr_t)d % SPOOL__FRAMES_BYTES_V4, 0);
    struct spool__cell_v4 *last = spool__frames_cell(d, SPOOL__FRAMES_CELLS - 1);
    assert_ptr_equal(spool__frames_of(last), d);
    assert_ptr_equal(spool__frames_of(spool__frames_cell(d, 0)), d);
    assert_true((char *)(last + 1) == (char *)d + SPOOL__FRAMES_BYTES_V4);
    assert_int_equal(spool__frames_head(d), 0);
    /* Not shared: no alert, every spawn and sync fast. */
    assert_true(atomic_load(&d->limit) == (uintptr_t)last);
    int64_t head = 0;
    for (long k = 0; k < 100; k++)
        spawn(d, &head, k);
    assert_int_equal(ts_of(d), 0);
    for (long k = 99; k >= 0; k--)
        assert_int_equal(sync_frame(d, &head), k);
    /* The overflow cell fails the spawn's test, a cell below it does not. */
    assert_false(spool__frames_spawn_fast(d, last));
    assert_true(spool__frames_spawn_fast(d, last - 1));
    spool__frames_destroy(d);
}

static void test_head_scan(void **state)
{
    (void)state;
    spool__frames_t *d = spool__frames_create(NULL, false);
    static const int64_t counts[] = {0, 1, 2, 3, 4, 7, 8, 9, 100, 1023, 1024, 5000};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int64_t head = 0;
        for (int64_t i = 0; i < counts[k]; i++)
            spawn(d, &head, (long)i);
        assert_int_equal(spool__frames_head(d), counts[k]);
        while (head > 0)
            (void)sync_frame(d, &head);
        assert_int_equal(spool__frames_head(d), 0);
    }
    spool__frames_destroy(d);
}

/* A shared deque, one thread in both roles: rule 1, asks, a retract, a
 * stolen frame waited for and F5's reset. */
static void test_parts_and_asks(void **state)
{
    (void)state;
    spool__frames_t *d = spool__frames_create(NULL, true);
    assert_true(atomic_load(&d->limit) == SPOOL__FRAMES_ASKED_LIMIT);
    int64_t head = 0;
    spawn(d, &head, 1); /* rule 1: public at once */
    assert_int_equal(spool__frames_tail(ts_of(d)), 0);
    assert_int_equal(spool__frames_split(ts_of(d)), 1);
    spawn(d, &head, 2); /* private */
    spawn(d, &head, 3);
    assert_int_equal(spool__frames_split(ts_of(d)), 1);
    assert_int_equal(spool__frames_head(d), 3);
    long arg;
    assert_true(steal_one(d, &arg)); /* the last public: it asks */
    assert_int_equal(arg, 1);
    assert_true(spool__frames_asked(d));
    assert_int_equal(atomic_load(&d->asked), 1);
    /* The sync of 3 serves the ask: 2 becomes public, 3 stays the owner's. */
    assert_int_equal(sync_frame(d, &head), 3);
    assert_false(spool__frames_asked(d));
    assert_int_equal(atomic_load(&d->asked), 0);
    assert_int_equal(spool__frames_tail(ts_of(d)), 1);
    assert_int_equal(spool__frames_split(ts_of(d)), 2);
    /* 2 is public: its sync retracts it, which empties the public part. */
    assert_int_equal(sync_frame(d, &head), 2);
    assert_int_equal(spool__frames_split(ts_of(d)), 1);
    assert_true(atomic_load(&d->limit) == SPOOL__FRAMES_ASKED_LIMIT);
    /* 1 was stolen and its latch is set: the result, then the reset. */
    assert_int_equal(sync_frame(d, &head), -1 - 10);
    uint64_t ts = ts_of(d);
    assert_int_equal(spool__frames_tail(ts), 0);
    assert_int_equal(spool__frames_split(ts), 0);
    assert_int_equal(ts >> SPOOL__FRAMES_GEN_SHIFT, 1);
    assert_int_equal(spool__frames_head(d), 0);
    assert_int_equal(atomic_load(spool__frames_state(spool__frames_cell(d, 0))), 0);
    /* An ask with the public part empty keeps the alert after a serve that
     * publishes nothing. */
    assert_false(steal_one(d, &arg));
    assert_true(spool__frames_asked(d));
    bool was_empty;
    assert_int_equal(spool__frames_serve(d, 0, &was_empty), 0);
    assert_true(atomic_load(&d->limit) == SPOOL__FRAMES_ASKED_LIMIT);
    assert_false(spool__frames_asked(d));
    spool__frames_destroy(d);
}

/* ---- threads that steal ------------------------------------------------------ */

enum { THIEVES = 3, MAX_DEPTH = 64 };

typedef struct stress {
    spool__frames_t *d;
    atomic_int stop;
    atomic_long stolen;
    atomic_uchar *ran; /* per frame id: times run */
} stress_t;

static void *thief(void *arg)
{
    stress_t *s = arg;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        long id;
        if (steal_one(s->d, &id)) {
            atomic_fetch_add_explicit(&s->ran[id], 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->stolen, 1, memory_order_relaxed);
        } else {
            spool__cpu_relax();
        }
    }
    return NULL;
}

static void test_threads_steal(void **state)
{
    (void)state;
    long rounds = (long)test_iters("SPOOL_TEST_FRAMES_ROUNDS", 4000);
    long frames = rounds * 8;
    stress_t s = {.d = spool__frames_create(NULL, true)};
    s.ran = calloc((size_t)frames, sizeof *s.ran);
    assert_non_null(s.d);
    assert_non_null(s.ran);
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thief, &s), 0);
    uint64_t x = 88172645463325252u;
    long next = 0, mine = 0, results = 0;
    long stack[MAX_DEPTH];
    int64_t head = 0;
    int depth = 0;
    while (next < frames || depth > 0) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bool push = next < frames && depth < MAX_DEPTH && (depth == 0 || x % 3 != 0);
        if (push) {
            stack[depth++] = next;
            spawn(s.d, &head, next++);
            continue;
        }
        long id = stack[--depth];
        long r = sync_frame(s.d, &head);
        if (r >= 0) {
            assert_int_equal(r, id);
            atomic_fetch_add_explicit(&s.ran[id], 1, memory_order_relaxed);
            mine++;
        } else {
            assert_int_equal(-1 - r, id * 10); /* the thief's result */
            results++;
        }
        assert_int_equal(spool__frames_head(s.d), head);
    }
    atomic_store_explicit(&s.stop, 1, memory_order_release);
    for (int i = 0; i < THIEVES; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (long id = 0; id < frames; id++)
        assert_int_equal(atomic_load(&s.ran[id]), 1);
    assert_int_equal(results, atomic_load(&s.stolen));
    assert_int_equal(mine + results, frames);
    print_message("frames: %ld of %ld stolen\n", results, frames);
    uint64_t ts = ts_of(s.d);
    assert_int_equal(spool__frames_tail(ts), 0);
    assert_int_equal(spool__frames_split(ts), 0);
    free(s.ran);
    spool__frames_destroy(s.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_head_scan),
        cmocka_unit_test(test_parts_and_asks),
        cmocka_unit_test(test_threads_steal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
