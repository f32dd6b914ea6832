/* A scope's spawns (src/scope/scope_spawn.c, src/scheduler/job_fifo.c, scope.md): spawn
 * blocks and FIFO tickets keep their order, coarse spawns are shared,
 * private spawns are published when asked for, FIFO spawns raced for by
 * many workers run once (spawn memory: test_block_cache.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pool_idle.h"
#include "scheduler/worker.h"
#include "scope/scope.h"
#include "spool.h"
#include "test_util.h"

static void noop_fn(void *arg)
{
    (void)arg;
}

/* ---- spawn blocks (src/scope/scope.md) ----------------------- */

/* On one thread a block of n entries must behave as n jobs pushed one by
 * one: 200 spawns (several full blocks), a join and a nested scope between
 * some of them (jobs above the open block, gone again before the next
 * spawn), and every fifth entry spawning a child into the same scope while
 * it runs (the scope's end runs its entries with the block left on the
 * deque, so the child joins that block, or a new one after the last entry,
 * and runs next).  LIFO: the newest spawn first, each child right
 * after its parent. */
enum { BLOCK_SPAWNS = 200 };
typedef struct block_order {
    int log[2 * BLOCK_SPAWNS];
    int len;
    int nested_ran;
    int value[BLOCK_SPAWNS];
} block_order_t;
static block_order_t block_order;

static void block_order_child(spool_scope_t *s, void *arg)
{
    (void)s;
    block_order.log[block_order.len++] = 1000 + *(int *)arg;
}

static void block_order_item(spool_scope_t *s, void *arg)
{
    int v = *(int *)arg;
    block_order.log[block_order.len++] = v;
    if (v % 5 == 0)
        assert_int_equal(spool_scope_spawn(s, block_order_child, arg), 0);
}

static void block_order_nested(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    block_order.nested_ran++;
}

static void block_order_nested_body(spool_scope_t *s, void *arg)
{
    assert_int_equal(spool_scope_spawn(s, block_order_nested, arg), 0);
    assert_int_equal(spool_scope_spawn(s, block_order_nested, arg), 0);
}

static void block_order_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < BLOCK_SPAWNS; i++) {
        block_order.value[i] = i;
        assert_int_equal(spool_scope_spawn(s, block_order_item, &block_order.value[i]), 0);
        if (i % 9 == 4)
            spool_join(noop_fn, NULL, noop_fn, NULL);
        if (i % 13 == 6)
            spool_scope(block_order_nested_body, NULL);
    }
}

static void block_order_install(void *arg)
{
    (void)arg;
    spool_scope(block_order_body, NULL);
}

static void block_order_fifo_install(void *arg)
{
    (void)arg;
    spool_scope_fifo(block_order_body, NULL);
}

/* The log is expected[0 .. n), and every nested scope's spawns ran. */
static void check_block_order(const int *expected, int n)
{
    assert_int_equal(block_order.len, n);
    for (int k = 0; k < n; k++)
        if (block_order.log[k] != expected[k])
            fail_msg("position %d: got %d, expected %d", k, block_order.log[k], expected[k]);
    assert_int_equal(block_order.nested_ran, 2 * ((BLOCK_SPAWNS - 7) / 13 + 1));
}

static void test_spawn_blocks_keep_lifo_order(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    memset(&block_order, 0, sizeof block_order);
    assert_int_equal(spool_pool_install(pool, block_order_install, NULL), 0);
    int expected[2 * BLOCK_SPAWNS], n = 0;
    for (int i = BLOCK_SPAWNS - 1; i >= 0; i--) {
        expected[n++] = i;
        if (i % 5 == 0)
            expected[n++] = 1000 + i;
    }
    check_block_order(expected, n);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* The same spawns into a FIFO scope: its worker counts references in
 * tickets of up to 64 (job_fifo.h), and every reference runs the FIFO's
 * front call, so the items run in spawn order, then the children they
 * spawned, as with one reference per spawn (rayon's order). */
static void test_fifo_tickets_keep_fifo_order(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    memset(&block_order, 0, sizeof block_order);
    assert_int_equal(spool_pool_install(pool, block_order_fifo_install, NULL), 0);
    int expected[2 * BLOCK_SPAWNS], n = 0;
    for (int i = 0; i < BLOCK_SPAWNS; i++)
        expected[n++] = i;
    for (int i = 0; i < BLOCK_SPAWNS; i += 5)
        expected[n++] = 1000 + i;
    check_block_order(expected, n);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* Blocks (and, in odd rounds, FIFO tickets) stolen whole, handed on from
 * deque to deque, published on demand and popped back, with entries that
 * spawn more: every entry runs once.
 * Rounds: SPOOL_TEST_BLOCK_ROUNDS. */
enum { BLOCK_STRESS_SPAWNS = 3000, BLOCK_STRESS_CHILDREN = 10 };
typedef struct block_stress {
    atomic_uint ran[BLOCK_STRESS_SPAWNS * (BLOCK_STRESS_CHILDREN + 1)];
    int index[BLOCK_STRESS_SPAWNS * (BLOCK_STRESS_CHILDREN + 1)];
} block_stress_t;

static block_stress_t *block_stress;

static void block_stress_child(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add_explicit(&block_stress->ran[*(int *)arg], 1, memory_order_relaxed);
}

static void block_stress_item(spool_scope_t *s, void *arg)
{
    int i = *(int *)arg;
    atomic_fetch_add_explicit(&block_stress->ran[i], 1, memory_order_relaxed);
    if (i % 100 == 0)
        for (int c = 1; c <= BLOCK_STRESS_CHILDREN; c++)
            assert_int_equal(spool_scope_spawn(s, block_stress_child,
                                               &block_stress->index[i + BLOCK_STRESS_SPAWNS * c]),
                             0);
}

static void block_stress_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < BLOCK_STRESS_SPAWNS; i++)
        assert_int_equal(spool_scope_spawn(s, block_stress_item, &block_stress->index[i]), 0);
}

static void block_stress_install(void *arg)
{
    (void)arg;
    spool_scope(block_stress_body, NULL);
}

static void block_stress_fifo_install(void *arg)
{
    (void)arg;
    spool_scope_fifo(block_stress_body, NULL);
}

static void test_spawn_blocks_across_threads(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_BLOCK_ROUNDS", 30);
    block_stress = calloc(1, sizeof *block_stress);
    assert_non_null(block_stress);
    const int total = BLOCK_STRESS_SPAWNS * (BLOCK_STRESS_CHILDREN + 1);
    for (int k = 0; k < total; k++)
        block_stress->index[k] = k;
    unsigned threads[] = {2, 4};
    for (size_t t = 0; t < 2; t++) {
        spool_config_t config = {.num_threads = threads[t]};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        for (unsigned long r = 0; r < rounds; r++) {
            for (int k = 0; k < total; k++)
                atomic_store_explicit(&block_stress->ran[k], 0, memory_order_relaxed);
            /* Odd rounds: a FIFO scope (tickets stolen, handed on, spent). */
            assert_int_equal(spool_pool_install(pool, r % 2 == 0 ? block_stress_install
                                                                  : block_stress_fifo_install,
                                                NULL),
                             0);
            for (int k = 0; k < total; k++) {
                /* Children exist for every hundredth item only. */
                unsigned want = k < BLOCK_STRESS_SPAWNS || (k % BLOCK_STRESS_SPAWNS) % 100 == 0;
                unsigned got = atomic_load_explicit(&block_stress->ran[k], memory_order_relaxed);
                if (got != want)
                    fail_msg("%u threads, round %lu: call %d ran %u times", threads[t], r, k, got);
            }
        }
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
    free(block_stress);
}

/* Coarse spawns run side by side (deque.md, rule 3): the scope's worker
 * pops a block of spawns and runs one while the others wait in it; with
 * workers idle it must publish them first, and whoever takes them must hand
 * them on, else they stay hidden as long as the one it runs.  Here each
 * spawn waits until all have started (or until a deadline), so they pass
 * only if every worker runs one at once (test_loop.c has the same for a
 * loop's leaves).  Each round starts once every worker is idle: that is
 * the promise ("The delay, bounded"); a worker still busy when the holder
 * looks, idle a moment later, waits for the end of the call the holder
 * runs, which here would be the deadline.  Rounds:
 * SPOOL_TEST_COARSE_ROUNDS. */
enum { COARSE_THREADS = 4, COARSE_DEADLINE_MS = 5000 };
typedef struct coarse_test {
    atomic_int started, all_met;
    atomic_int gate_open; /* see test_spawns_shared_with_starting_workers */
} coarse_test_t;

static void coarse_spawn(spool_scope_t *s, void *arg)
{
    (void)s;
    coarse_test_t *t = arg;
    atomic_store(&t->gate_open, 1);
    if (test_meet(&t->started, COARSE_THREADS, COARSE_DEADLINE_MS))
        atomic_fetch_add(&t->all_met, 1);
}

static void coarse_body(spool_scope_t *s, void *arg)
{
    for (int i = 0; i < COARSE_THREADS; i++)
        assert_int_equal(spool_scope_spawn(s, coarse_spawn, arg), 0);
}

static void coarse_lifo(void *arg)
{
    spool_scope(coarse_body, arg);
}

static void coarse_fifo(void *arg)
{
    spool_scope_fifo(coarse_body, arg);
}

/* Both scope kinds, each round. */
static const spool_fn coarse_kinds[] = {coarse_lifo, coarse_fifo};

static void coarse_test_init(coarse_test_t *t)
{
    atomic_init(&t->started, 0);
    atomic_init(&t->all_met, 0);
    atomic_init(&t->gate_open, 0);
}

static void coarse_check(coarse_test_t *t, size_t kind, unsigned long round)
{
    if (atomic_load(&t->all_met) != COARSE_THREADS)
        fail_msg("%s scope, round %lu: %d of %d calls saw all %d start",
                 kind == 0 ? "LIFO" : "FIFO", round, atomic_load(&t->all_met), COARSE_THREADS,
                 COARSE_THREADS);
}

static void test_coarse_spawns_run_side_by_side(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_COARSE_ROUNDS", 20);
    spool_config_t config = {.num_threads = COARSE_THREADS};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (unsigned long r = 0; r < rounds; r++) {
        for (size_t k = 0; k < 2; k++) {
            coarse_test_t t;
            coarse_test_init(&t);
            /* Every other round the workers also fall asleep first. */
            if (r % 2 == 1)
                test_sleep_ms(20);
            assert_true(test_wait_pool_idle(pool, COARSE_DEADLINE_MS));
            assert_int_equal(spool_pool_install(pool, coarse_kinds[k], &t), 0);
            coarse_check(&t, k, r);
        }
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* Rule 3 itself: the scope's worker, about to run one of its spawns, must
 * publish the others while workers are idle, though none has asked yet.
 * Idle workers that are searching take the first spawn at once and ask for
 * more (rules 1 and 2 then do the work), so here the other workers are
 * held in the start handler (counted idle: sleep.md) until the first spawn
 * runs; without rule 3 the rest would stay hidden until that spawn ends,
 * which here is the deadline. */
static void gated_start(void *ctx, unsigned index)
{
    coarse_test_t *t = ctx;
    for (int ms = 0; index != 0 && ms < COARSE_DEADLINE_MS && !atomic_load(&t->gate_open); ms++)
        test_sleep_ms(1);
}

static void test_spawns_shared_with_starting_workers(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_GATED_ROUNDS", 3);
    for (unsigned long r = 0; r < rounds; r++) {
        for (size_t k = 0; k < 2; k++) {
            coarse_test_t t;
            coarse_test_init(&t);
            spool_config_t config = {
                .num_threads = COARSE_THREADS, .start_handler = gated_start, .handler_ctx = &t};
            spool_pool_t *pool;
            assert_int_equal(spool_pool_create(&config, &pool), 0);
            assert_int_equal(spool_pool_install(pool, coarse_kinds[k], &t), 0);
            assert_int_equal(spool_pool_destroy(pool), 0);
            coarse_check(&t, k, r);
        }
    }
}

/* ---- bad input ---------------------------------------------------------- */

/* Demand (src/deque/deque.md): spawns pushed while the other worker is busy stay
 * private, except the first; once that one is taken, the idle worker asks
 * for more, and the owner publishes the rest at its next pop (at the
 * scope's end it only pops, never pushes).  Without demand the owner would
 * run every spawn but the first itself. */
enum { DEMAND_SPAWNS = 12 };
typedef struct demand_test {
    atomic_int blocker_started, blocker_release;
    int owner;
    atomic_int ran_elsewhere;
} demand_test_t;

static void demand_blocker(spool_scope_t *s, void *arg)
{
    (void)s;
    demand_test_t *t = arg;
    atomic_store(&t->blocker_started, 1);
    while (!atomic_load(&t->blocker_release))
        test_sleep_ms(1);
}

static void demand_spawn(spool_scope_t *s, void *arg)
{
    (void)s;
    demand_test_t *t = arg;
    if (spool_current_thread_index() != t->owner)
        atomic_fetch_add(&t->ran_elsewhere, 1);
    test_sleep_ms(3);
}

static void demand_body(spool_scope_t *s, void *arg)
{
    demand_test_t *t = arg;
    t->owner = spool_current_thread_index();
    assert_int_equal(spool_scope_spawn(s, demand_blocker, t), 0);
    /* The blocker is public (the deque held nothing): the other worker takes it. */
    for (int ms = 0; ms < 10000 && !atomic_load(&t->blocker_started); ms++)
        test_sleep_ms(1);
    assert_true(atomic_load(&t->blocker_started));
    for (int i = 0; i < DEMAND_SPAWNS; i++)
        assert_int_equal(spool_scope_spawn(s, demand_spawn, t), 0);
    atomic_store(&t->blocker_release, 1);
}

static void demand_install(void *arg)
{
    spool_scope(demand_body, arg);
}

static void test_private_spawns_published_on_demand(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    demand_test_t t = {.owner = -1};
    atomic_init(&t.blocker_started, 0);
    atomic_init(&t.blocker_release, 0);
    atomic_init(&t.ran_elsewhere, 0);
    assert_int_equal(spool_pool_install(pool, demand_install, &t), 0);
    /* The first spawn was public; more than it ran on the other worker. */
    assert_true(atomic_load(&t.ran_elsewhere) >= 2);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* FIFO spawns taken by many threads at once: the per-worker FIFOs are
 * lock-free queues whose front is raced for by every holder of a ticket's
 * reference.  Every job must run exactly once, from every worker's FIFO. */
typedef struct fifo_race {
    unsigned long n;
    _Atomic unsigned char *ran;
    atomic_ulong next;
} fifo_race_t;

static fifo_race_t fifo_race;

static void fifo_race_leaf(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add(&fifo_race.ran[(uintptr_t)arg], 1);
}

/* Spawns a batch of leaves from whichever worker runs it, so that several
 * workers' FIFOs fill and drain at once. */
static void fifo_race_batch(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 64; i++) {
        unsigned long k = atomic_fetch_add(&fifo_race.next, 1);
        if (k >= fifo_race.n)
            return;
        assert_int_equal(spool_scope_spawn(s, fifo_race_leaf, (void *)(uintptr_t)k), 0);
    }
    assert_int_equal(spool_scope_spawn(s, fifo_race_batch, NULL), 0);
    assert_int_equal(spool_scope_spawn(s, fifo_race_batch, NULL), 0);
}

static void fifo_race_body(spool_scope_t *s, void *arg)
{
    fifo_race_batch(s, arg);
}

static void run_fifo_race(void *arg)
{
    (void)arg;
    spool_scope_fifo(fifo_race_body, NULL);
}

static void test_fifo_spawns_race(void **state)
{
    (void)state;
    unsigned long n = test_iters("SPOOL_TEST_FIFO_SPAWNS", 200000);
    fifo_race.n = n;
    fifo_race.ran = calloc(n, 1);
    assert_non_null(fifo_race.ran);
    atomic_init(&fifo_race.next, 0);
    spool_config_t config = {.num_threads = 4};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_install(pool, run_fifo_race, NULL), 0);
    for (unsigned long k = 0; k < n; k++)
        if (atomic_load(&fifo_race.ran[k]) != 1)
            fail_msg("job %lu ran %u times", k, (unsigned)atomic_load(&fifo_race.ran[k]));
    assert_int_equal(spool_pool_destroy(pool), 0);
    free((void *)fifo_race.ran);
}

int main(void)
{
    spool_config_t global = {.num_threads = 1};
    if (spool_global_init(&global) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_spawns_race),
        cmocka_unit_test(test_private_spawns_published_on_demand),
        cmocka_unit_test(test_spawn_blocks_keep_lifo_order),
        cmocka_unit_test(test_fifo_tickets_keep_fifo_order),
        cmocka_unit_test(test_spawn_blocks_across_threads),
        cmocka_unit_test(test_coarse_spawns_run_side_by_side),
        cmocka_unit_test(test_spawns_shared_with_starting_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
