/* Spawn memory (src/memory/block_cache.c, src/memory/job_cache.c): a scope's spawns
 * recycle their job slabs without a malloc per spawn in steady state, and
 * spare spawn blocks spill from a worker to its pool's list and back,
 * within SPOOL__BLOCK_CACHE_KEEP, whichever worker frees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "scheduler/worker.h"
#include "scope/scope.h"
#include "spool.h"
#include "test_util.h"

static void noop_scope_fn(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
}

/* ---- no malloc per spawn in steady state -------------------------------- */

static size_t count_slabs(spool_pool_t *pool)
{
    return spool__job_pool_slab_count(&pool->job_pool);
}

static void many_spawns_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++)
        spool_scope_spawn(s, noop_scope_fn, NULL);
}

/* An in-place scope's spawns take a job block each (its worker's spawns
 * are not blocked up: the body may wait for them); a FIFO scope's take a
 * ticket per 64 (the calls themselves are in the FIFO's queue). */
static void run_many_spawns(void *arg)
{
    (void)arg;
    spool_in_place_scope(many_spawns_body, NULL);
    spool_scope_fifo(many_spawns_body, NULL);
}

static void test_job_memory_is_recycled(void **state)
{
    (void)state;
    /* One thread: every round has the same peak of pending jobs. */
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_install(pool, run_many_spawns, NULL), 0);
    size_t after_first = count_slabs(pool);
    assert_true(after_first >= 20000 / SPOOL__JOB_BATCH);
    for (int r = 0; r < 10; r++)
        assert_int_equal(spool_pool_install(pool, run_many_spawns, NULL), 0);
    /* Same peak, same blocks: no slab was allocated again. */
    assert_int_equal(count_slabs(pool), after_first);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- spare spawn blocks (block_cache.h, SPOOL__BLOCK_CACHE_KEEP) ------- */

/* A spare list's length, checked against its count. */
static unsigned spare_list_length(spool__block_t *b, unsigned count)
{
    unsigned n = 0;
    for (; b != NULL; b = b->next) /* the link is the one word not poisoned */
        n++;
    assert_int_equal(n, count);
    return n;
}

/* Run on a worker of the pool: its spares and the pool's. */
static void spare_counts(unsigned *worker, unsigned *pool)
{
    spool__worker_t *w = spool__current_worker();
    assert_non_null(w);
    *worker = spare_list_length(w->blocks.spares, w->blocks.count);
    spool__block_depot_t *d = &w->pool->blocks;
    pthread_mutex_lock(&d->lock);
    *pool = spare_list_length(d->spares, d->count);
    pthread_mutex_unlock(&d->lock);
    assert_true(*worker <= SPOOL__BLOCK_CACHE_KEEP);
    assert_true(*pool <= SPOOL__BLOCK_CACHE_KEEP * w->pool->num_threads);
}

/* More than a worker's spares and the pool's list together hold. */
enum { RECYCLE_BLOCKS = 2 * SPOOL__BLOCK_CACHE_KEEP + 8 };
typedef struct spare_round {
    spool_scope_fn call;
    unsigned worker_after_spawns, pool_after_spawns;
    unsigned worker_after, pool_after;
    atomic_ulong ran;
} spare_round_t;

static void count_call(spool_scope_t *s, void *arg)
{
    (void)s;
    atomic_fetch_add_explicit(&((spare_round_t *)arg)->ran, 1, memory_order_relaxed);
}

/* A round: RECYCLE_BLOCKS full blocks' worth of r->call, the spare counts
 * read after the spawns and after the scope. */
static void spare_round_body(spool_scope_t *s, void *arg)
{
    spare_round_t *r = arg;
    for (unsigned i = 0; i < RECYCLE_BLOCKS * SPOOL__SPAWN_BLOCK_CAP; i++)
        assert_int_equal(spool_scope_spawn(s, r->call, r), 0);
    spare_counts(&r->worker_after_spawns, &r->pool_after_spawns);
}

static void spare_round(void *arg)
{
    spare_round_t *r = arg;
    spool_scope(spare_round_body, r);
    spare_counts(&r->worker_after, &r->pool_after);
}

/* One thread, so every round is the same: about RECYCLE_BLOCKS blocks
 * (the first push publishes its block, as the public part is empty, so
 * there may be one more), all live at the end of the spawns, then freed one
 * by one at the scope's end.  Freeing, the worker's spares fill to
 * SPOOL__BLOCK_CACHE_KEEP (S), and the next block spills them to the pool's
 * list (S at one thread); later spills find that list full and give blocks
 * back to malloc.  The next round takes the worker's spares and then the
 * pool's (more than S + S blocks) before malloc: both lists are empty once
 * it has spawned, and its end leaves them as the first round's did. */
static void test_spare_blocks_spill_to_the_pool(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    unsigned worker_after_first = 0;
    for (int round = 0; round < 3; round++) {
        spare_round_t r = {.call = count_call};
        assert_int_equal(spool_pool_install(pool, spare_round, &r), 0);
        assert_int_equal(atomic_load(&r.ran), RECYCLE_BLOCKS * SPOOL__SPAWN_BLOCK_CAP);
        assert_int_equal(r.pool_after, SPOOL__BLOCK_CACHE_KEEP);
        if (round == 0) {
            worker_after_first = r.worker_after;
            assert_int_equal(r.worker_after_spawns, 0);
        } else {
            assert_int_equal(r.worker_after_spawns, 0);
            assert_int_equal(r.pool_after_spawns, 0);
            assert_int_equal(r.worker_after, worker_after_first);
        }
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* One spawner, thieves that run its blocks: the blocks a thief frees reach
 * the spawner again through the pool's list.  Every call runs once, and the
 * lists stay within their bounds (spare_counts) whoever frees. */
static void spread_call(spool_scope_t *s, void *arg)
{
    count_call(s, arg);
    volatile unsigned spin = 0; /* a little work, so that thieves take blocks */
    for (unsigned i = 0; i < 50; i++)
        spin += i;
    assert_int_equal(spin, 50 * 49 / 2);
}

static void test_spare_blocks_shared_by_workers(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_SPARE_ROUNDS", 50);
    spool_config_t config = {.num_threads = 4};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    for (unsigned long round = 0; round < rounds; round++) {
        spare_round_t r = {.call = spread_call};
        assert_int_equal(spool_pool_install(pool, spare_round, &r), 0);
        assert_int_equal(atomic_load(&r.ran), RECYCLE_BLOCKS * SPOOL__SPAWN_BLOCK_CAP);
    }
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_memory_is_recycled),
        cmocka_unit_test(test_spare_blocks_spill_to_the_pool),
        cmocka_unit_test(test_spare_blocks_shared_by_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
