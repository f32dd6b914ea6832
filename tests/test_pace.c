/*
 * The pace of a worker's entries (src/deque/pace.h) and rule 4 of deque.md: a
 * worker whose entries are coarse publishes the rest of its jobs before it
 * runs the next one, so that a worker that goes idle while that entry runs
 * finds them at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>

#include <spool.h>

#include "deque/pace.h"
#include "test_util.h"

/* ---- the sampler ---------------------------------------------------------- */

static void test_pace_tells_fine_from_coarse(void **state)
{
    (void)state;
    spool__pace_t p;
    spool__pace_init(&p, true);
    /* Entries of nothing: fine, sampled less and less often.  A preemption
     * of the test's thread can make one interval read coarse; a few may. */
    int coarse = 0;
    for (int i = 0; i < 10000; i++)
        coarse += spool__pace_coarse(&p);
    assert_true(coarse <= 10);
    /* Entries of a millisecond each (far above tuning.pace_coarse,
     * in TSC ticks or nanoseconds): coarse by the first sample, at most
     * tuning.pace_every_max entries on, then at every entry. */
    int first = -1;
    for (int i = 0; i < (int)spool__tuning.pace_every_max + 8; i++) {
        test_sleep_ms(1);
        bool c = spool__pace_coarse(&p);
        if (first < 0 && c)
            first = i;
        if (first >= 0 && !c)
            fail_msg("entry %d of 1 ms read fine after entry %d read coarse", i, first);
    }
    assert_true(first >= 0 && first < (int)spool__tuning.pace_every_max);
    assert_int_equal(p.every, 1);
    /* Disabled (a pool of one thread): never coarse. */
    spool__pace_init(&p, false);
    for (int i = 0; i < 3; i++) {
        test_sleep_ms(1);
        assert_false(spool__pace_coarse(&p));
    }
}

/* ---- rule 4 in a pool ------------------------------------------------------ */

/* Two workers.  The scope's worker X spawns a blocker, which the other
 * worker Y takes (the first job is public, rule 1), then ENTRIES entries of
 * 2 ms: the first of them public too (rule 1 again: Y took the only public
 * job), the rest private with X, as Y is busy and asks for nothing.  X runs
 * them at the scope's end; in its RELEASE_AT-th entry it releases Y and
 * waits for two entries to start on Y: the public one, and one more, which
 * Y can take only if X published the rest before that entry began, its
 * entries being coarse (rule 4).  Without rule 4 the rest stays hidden
 * until the entry returns, so the wait runs to its deadline and the test
 * fails (it does not hang). */
enum { ENTRIES = 24, RELEASE_AT = 6, ENTRY_MS = 2, WAIT_MS = 5000 };

typedef struct rule4_test {
    atomic_int blocker_started, release, on_y, x_entries;
    int x;
    int seen_on_y; /* entries started on Y when X's wait ended */
} rule4_test_t;

static void rule4_blocker(spool_scope_t *s, void *arg)
{
    (void)s;
    rule4_test_t *t = arg;
    atomic_store(&t->blocker_started, 1);
    test_wait_at_least(&t->release, 1, 2 * WAIT_MS);
}

static void rule4_entry(spool_scope_t *s, void *arg)
{
    (void)s;
    rule4_test_t *t = arg;
    if (spool_current_thread_index() != t->x) {
        atomic_fetch_add(&t->on_y, 1);
        test_sleep_ms(ENTRY_MS);
        return;
    }
    int k = atomic_fetch_add(&t->x_entries, 1) + 1;
    if (k == RELEASE_AT) {
        atomic_store(&t->release, 1);
        test_wait_at_least(&t->on_y, 2, WAIT_MS);
        t->seen_on_y = atomic_load(&t->on_y);
    } else {
        test_sleep_ms(ENTRY_MS);
    }
}

static void rule4_body(spool_scope_t *s, void *arg)
{
    rule4_test_t *t = arg;
    t->x = spool_current_thread_index();
    assert_int_equal(spool_scope_spawn(s, rule4_blocker, t), 0);
    assert_true(test_wait_at_least(&t->blocker_started, 1, WAIT_MS));
    for (int i = 0; i < ENTRIES; i++)
        assert_int_equal(spool_scope_spawn(s, rule4_entry, t), 0);
}

static void rule4_lifo(void *arg)
{
    spool_scope(rule4_body, arg);
}

static void rule4_fifo(void *arg)
{
    spool_scope_fifo(rule4_body, arg);
}

static void rule4_run(spool_fn install, const char *kind)
{
    unsigned long rounds = test_iters("SPOOL_TEST_PACE_ROUNDS", 3);
    for (unsigned long r = 0; r < rounds; r++) {
        spool_config_t config = {.num_threads = 2};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        rule4_test_t t = {.x = -1, .seen_on_y = -1};
        atomic_init(&t.blocker_started, 0);
        atomic_init(&t.release, 0);
        atomic_init(&t.on_y, 0);
        atomic_init(&t.x_entries, 0);
        assert_int_equal(spool_pool_install(pool, install, &t), 0);
        assert_int_equal(spool_pool_destroy(pool), 0);
        if (t.seen_on_y < 2)
            fail_msg("%s scope, round %lu: the idle worker started %d entries (2 expected) "
                     "while its peer ran its entry %d of 2 ms ones",
                     kind, r, t.seen_on_y, RELEASE_AT);
        assert_int_equal(atomic_load(&t.on_y) + atomic_load(&t.x_entries), ENTRIES);
    }
}

static void test_coarse_rest_is_published_lifo(void **state)
{
    (void)state;
    rule4_run(rule4_lifo, "LIFO");
}

static void test_coarse_rest_is_published_fifo(void **state)
{
    (void)state;
    rule4_run(rule4_fifo, "FIFO");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pace_tells_fine_from_coarse),
        cmocka_unit_test(test_coarse_rest_is_published_lifo),
        cmocka_unit_test(test_coarse_rest_is_published_fifo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
