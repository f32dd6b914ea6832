/*
 * Task groups and copying spawns: spool_group_*, spool_scope_spawn_copy,
 * and scope spawns that run at once when no memory can be had.
 *   SPOOL_TEST_GROUP_NODES: the nested-groups tree's depth budget.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "platform/test_hooks.h"
#include "test_util.h"

static spool_pool_t *pool;
static atomic_long ran;

static int setup(void **state)
{
    (void)state;
    spool_config_t c = {.num_threads = 2};
    return spool_pool_create(&c, &pool);
}

static int teardown(void **state)
{
    (void)state;
    return spool_pool_destroy(pool);
}

/* ---- copy semantics ------------------------------------------------------- */

typedef struct copy_case {
    size_t size;
    unsigned char seed;
} copy_case_t;

static unsigned char pattern(unsigned char seed, size_t i)
{
    return (unsigned char)(seed * 31u + i * 7u);
}

static atomic_int copy_errors;

/* Checks the copy against the pattern its size and seed (its first bytes,
 * for sizes of at least 2) say. */
static void check_copy(spool_scope_t *scope, void *arg)
{
    (void)scope;
    atomic_fetch_add(&ran, 1);
    if (arg == NULL)
        return;
    if ((uintptr_t)arg % _Alignof(max_align_t) != 0)
        atomic_fetch_add(&copy_errors, 1);
    const unsigned char *p = arg;
    size_t size = (size_t)p[0] | (size_t)p[1] << 8;
    unsigned char seed = p[2];
    for (size_t i = 3; i < size; i++)
        if (p[i] != pattern(seed, i))
            atomic_fetch_add(&copy_errors, 1);
}

static void check_one_byte(spool_scope_t *scope, void *arg)
{
    (void)scope;
    atomic_fetch_add(&ran, 1);
    if (arg == NULL || *(unsigned char *)arg != 0xa5)
        atomic_fetch_add(&copy_errors, 1);
}

static void check_null(spool_scope_t *scope, void *arg)
{
    (void)scope;
    atomic_fetch_add(&ran, 1);
    if (arg != NULL)
        atomic_fetch_add(&copy_errors, 1);
}

/* Spawns copies of sizes 0, 1, 63, 64, 65 and 4096 from one buffer that is
 * overwritten right after each spawn. */
static long spawn_copies(spool_group_t *g)
{
    static const size_t sizes[] = {63, 64, 65, 4096};
    unsigned char buf[4096];
    long spawned = 0;
    for (unsigned round = 0; round < 50; round++) {
        assert_int_equal(spool_group_spawn_copy(g, check_null, NULL, 0), 0);
        buf[0] = 0xa5;
        assert_int_equal(spool_group_spawn_copy(g, check_one_byte, buf, 1), 0);
        buf[0] = 0;
        spawned += 2;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t size = sizes[k];
            unsigned char seed = (unsigned char)(round * 5 + k);
            buf[0] = (unsigned char)size;
            buf[1] = (unsigned char)(size >> 8);
            buf[2] = seed;
            for (size_t i = 3; i < size; i++)
                buf[i] = pattern(seed, i);
            assert_int_equal(spool_group_spawn_copy(g, check_copy, buf, size), 0);
            memset(buf, 0xff, size); /* the job must see the old contents */
            spawned++;
        }
    }
    return spawned;
}

static void copies_in_group(void *arg)
{
    long *spawned = arg;
    spool_group_t g;
    spool_group_init(&g);
    *spawned = spawn_copies(&g);
    spool_group_wait(&g);
}

static void test_copy_semantics(void **state)
{
    (void)state;
    long spawned = 0;
    atomic_store(&ran, 0);
    atomic_store(&copy_errors, 0);
    assert_int_equal(spool_pool_install(pool, copies_in_group, &spawned), 0); /* on a worker */
    assert_int_equal(atomic_load(&ran), spawned);
    atomic_store(&ran, 0);
    copies_in_group(&spawned); /* outside any pool: the global pool */
    assert_int_equal(atomic_load(&ran), spawned);
    assert_int_equal(atomic_load(&copy_errors), 0);
}

static void nop_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
}

static void bad_copies(spool_scope_t *scope, void *arg)
{
    (void)arg;
    int x = 1;
    assert_int_equal(spool_scope_spawn_copy(NULL, nop_job, &x, sizeof x), EINVAL);
    assert_int_equal(spool_scope_spawn_copy(scope, NULL, &x, sizeof x), EINVAL);
    assert_int_equal(spool_scope_spawn_copy(scope, nop_job, NULL, 1), EINVAL);
    assert_int_equal(spool_scope_spawn_copy(scope, nop_job, NULL, 0), 0);
    assert_int_equal(spool_group_spawn(NULL, nop_job, NULL), EINVAL);
    assert_int_equal(spool_group_spawn_copy(NULL, nop_job, &x, sizeof x), EINVAL);
    assert_null(spool_group_scope(NULL));
}

static void test_copy_bad_input(void **state)
{
    (void)state;
    spool_scope(bad_copies, NULL);
}

/* ---- groups nested in groups: a tree, every node a group ------------------ */

typedef struct node {
    unsigned depth;
    uint64_t id;
} node_t;

static void tree_node(spool_scope_t *scope, void *arg)
{
    (void)scope;
    node_t n = *(node_t *)arg;
    atomic_fetch_add(&ran, 1);
    if (n.depth == 0)
        return;
    spool_group_t g;
    spool_group_init(&g);
    for (unsigned i = 0; i < 3; i++) {
        node_t child = {n.depth - 1, n.id * 3 + i};
        /* The child's block is this loop's variable: copied. */
        assert_int_equal(spool_group_spawn_copy(&g, tree_node, &child, sizeof child), 0);
    }
    spool_group_wait(&g);
}

static long tree_size(unsigned depth)
{
    long n = 0, level = 1;
    for (unsigned d = 0; d <= depth; d++, level *= 3)
        n += level;
    return n;
}

static void tree_root(void *arg)
{
    node_t root = {*(unsigned *)arg, 0};
    tree_node(NULL, &root);
}

static void test_nested_groups(void **state)
{
    (void)state;
    unsigned depth = (unsigned)test_iters("SPOOL_TEST_GROUP_NODES", 8);
    atomic_store(&ran, 0);
    assert_int_equal(spool_pool_install(pool, tree_root, &depth), 0);
    assert_int_equal(atomic_load(&ran), tree_size(depth));
    atomic_store(&ran, 0);
    tree_root(&depth); /* from outside: every level's wait blocks or runs */
    assert_int_equal(atomic_load(&ran), tree_size(depth));
}

/* ---- groups in loops, and loop parts spawning into an enclosing group ----- */

static void count_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void group_per_iteration(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    for (size_t i = b; i < e; i++) {
        spool_group_t g;
        spool_group_init(&g);
        for (size_t k = 0; k < i % 7; k++)
            assert_int_equal(spool_group_spawn_copy(&g, count_job, &k, sizeof k), 0);
        spool_group_wait(&g);
    }
}

static void test_groups_in_loop(void **state)
{
    (void)state;
    atomic_store(&ran, 0);
    long want = 0;
    for (size_t i = 0; i < 1000; i++)
        want += (long)(i % 7);
    spool_for(0, 1000, &(spool_for_opts_t){.max_len = 1}, group_per_iteration, NULL);
    assert_int_equal(atomic_load(&ran), want);
}

typedef struct part_spawn {
    spool_group_t *group;
    atomic_int threads_seen[64];
} part_spawn_t;

static void part_spawns(void *ctx, size_t b, size_t e)
{
    part_spawn_t *p = ctx;
    int idx = spool_current_thread_index();
    if (idx >= 0 && idx < 64)
        atomic_store(&p->threads_seen[idx], 1);
    for (size_t i = b; i < e; i++)
        assert_int_equal(spool_group_spawn_copy(p->group, count_job, &i, sizeof i), 0);
}

static void loop_into_group(void *arg)
{
    part_spawn_t *p = arg;
    spool_group_t g;
    spool_group_init(&g);
    p->group = &g;
    spool_for(0, 4000, &(spool_for_opts_t){.max_len = 1}, part_spawns, p);
    spool_group_wait(&g);
}

static void test_loop_parts_spawn_into_group(void **state)
{
    (void)state;
    part_spawn_t p;
    memset(&p, 0, sizeof p);
    atomic_store(&ran, 0);
    assert_int_equal(spool_pool_install(pool, loop_into_group, &p), 0);
    assert_int_equal(atomic_load(&ran), 4000);
    atomic_store(&ran, 0);
    loop_into_group(&p); /* from outside */
    assert_int_equal(atomic_load(&ran), 4000);
}

/* ---- FIFO and LIFO order, one worker -------------------------------------- */

typedef struct order_log {
    int next;
    int seen[64];
} order_log_t;

typedef struct order_arg {
    order_log_t *log;
    int value;
} order_arg_t;

static void log_order(spool_scope_t *scope, void *arg)
{
    (void)scope;
    order_arg_t *a = arg;
    a->log->seen[a->log->next++] = a->value;
}

static void ordered_group(void *arg)
{
    order_log_t *log = arg;
    bool fifo = log->next == -1;
    log->next = 0;
    spool_group_t g;
    if (fifo)
        spool_group_init_fifo(&g);
    else
        spool_group_init(&g);
    for (int i = 0; i < 32; i++) {
        order_arg_t a = {log, i};
        assert_int_equal(spool_group_spawn_copy(&g, log_order, &a, sizeof a), 0);
    }
    spool_group_wait(&g);
}

static void test_group_order(void **state)
{
    (void)state;
    spool_pool_t *one;
    spool_config_t c = {.num_threads = 1};
    assert_int_equal(spool_pool_create(&c, &one), 0);
    order_log_t log = {.next = -1};
    assert_int_equal(spool_pool_install(one, ordered_group, &log), 0);
    assert_int_equal(log.next, 32);
    for (int i = 0; i < 32; i++)
        assert_int_equal(log.seen[i], i); /* FIFO: first spawned first */
    log.next = 0;
    assert_int_equal(spool_pool_install(one, ordered_group, &log), 0);
    assert_int_equal(log.next, 32);
    for (int i = 0; i < 32; i++)
        assert_int_equal(log.seen[i], 31 - i); /* LIFO: last spawned first */
    assert_int_equal(spool_pool_destroy(one), 0);
}

/* ---- cancellation: dropped copies are freed ------------------------------- */

static atomic_bool cancel_done;

/* Counts itself, then holds its thread until the cancel: so only the jobs
 * that started before it (one per thread at most) run. */
static void count_then_hold(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    atomic_fetch_add(&ran, 1);
    for (int ms = 0; ms < 10000 && !atomic_load(&cancel_done); ms++)
        test_sleep_ms(1);
}

static void cancel_then_spawn(void *arg)
{
    (void)arg;
    atomic_store(&cancel_done, false);
    spool_group_t g;
    spool_group_init(&g);
    char big[200] = {0};
    for (int i = 0; i < 100; i++) {
        assert_int_equal(
            spool_group_spawn_copy(&g, count_then_hold, big, i % 2 ? sizeof big : 16), 0);
    }
    assert_int_equal(spool_scope_cancel(spool_group_scope(&g)), 0);
    atomic_store(&cancel_done, true);
    assert_int_equal(spool_group_spawn_copy(&g, count_job, big, 16), ECANCELED);
    assert_int_equal(spool_group_spawn_copy(&g, count_job, big, sizeof big), ECANCELED);
    spool_group_wait(&g);
}

static void test_cancelled_copies_freed(void **state)
{
    (void)state;
    atomic_store(&ran, 0);
    /* LeakSanitizer and memcheck report a copy a drop did not free. */
    assert_int_equal(spool_pool_install(pool, cancel_then_spawn, NULL), 0);
    assert_true(atomic_load(&ran) <= 2); /* one per worker at most */
    atomic_store(&ran, 0);
    cancel_then_spawn(NULL);
    assert_true(atomic_load(&ran) <= 3); /* and the caller */
}

/* ---- no memory: every scope spawn runs, exactly once ---------------------- */

#define FAULT_JOBS 300

static atomic_int fault_runs[FAULT_JOBS];

static void fault_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    int i = *(int *)arg;
    atomic_fetch_add(&fault_runs[i], 1);
}

static int fault_index[FAULT_JOBS];

static void fault_other_thread(void *ctx, size_t b, size_t e)
{
    spool_group_t *g = ctx;
    for (size_t i = b; i < e; i++)
        assert_int_equal(spool_group_spawn(g, fault_job, &fault_index[i]), 0);
}

static void fault_spawns(void *arg)
{
    bool fifo = *(bool *)arg;
    spool_group_t g;
    if (fifo)
        spool_group_init_fifo(&g);
    else
        spool_group_init(&g);
    for (int i = 0; i < FAULT_JOBS / 3; i++)
        assert_int_equal(spool_group_spawn(&g, fault_job, &fault_index[i]), 0);
    for (int i = FAULT_JOBS / 3; i < 2 * FAULT_JOBS / 3; i++)
        assert_int_equal(spool_group_spawn_copy(&g, fault_job, &i, sizeof i), 0);
    spool_for(2 * FAULT_JOBS / 3, FAULT_JOBS, &(spool_for_opts_t){.max_len = 1}, fault_other_thread,
              &g);
    spool_group_wait(&g);
}

static void run_fault_case(spool_pool_t *p, bool fifo, int which)
{
    for (int i = 0; i < FAULT_JOBS; i++)
        atomic_store(&fault_runs[i], 0);
    if (which == 0)
        spool__test_fail_spawn_alloc(1);
    else
        spool__test_fail_deque_grow(1);
    if (p != NULL)
        assert_int_equal(spool_pool_install(p, fault_spawns, &fifo), 0);
    else
        fault_spawns(&fifo);
    spool__test_fail_spawn_alloc(0);
    spool__test_fail_deque_grow(0);
    for (int i = 0; i < FAULT_JOBS; i++)
        if (atomic_load(&fault_runs[i]) != 1)
            fail_msg("job %d ran %d times (fifo %d, fault %d)", i, atomic_load(&fault_runs[i]),
                     fifo, which);
}

static void test_no_memory_runs_at_spawn(void **state)
{
    (void)state;
    for (int i = 0; i < FAULT_JOBS; i++)
        fault_index[i] = i;
    for (int which = 0; which < 2; which++) {
        for (int fifo = 0; fifo < 2; fifo++) {
            /* A fresh pool: no spare blocks, so every allocation is tried. */
            spool_pool_t *p;
            spool_config_t c = {.num_threads = 2};
            assert_int_equal(spool_pool_create(&c, &p), 0);
            run_fault_case(p, fifo, which);
#ifdef SPOOL_STATS
            if (which == 0) {
                unsigned long long at_spawn = 0;
                for (unsigned w = 0; w < 2; w++) {
                    spool_worker_stats_t st;
                    assert_int_equal(spool_pool_stats(p, w, &st, sizeof st), 0);
                    at_spawn += st.jobs_run_at_spawn;
                }
                assert_true(at_spawn > 0);
            }
#endif
            assert_int_equal(spool_pool_destroy(p), 0);
            run_fault_case(NULL, fifo, which); /* from outside, the global pool */
        }
    }
}

/* ---- the timeline marks a job run at its spawn ---------------------------- */

#if SPOOL_TRACING
static void spawn_without_memory(void *arg)
{
    (void)arg;
    spool_group_t g;
    spool_group_init(&g);
    spool__test_fail_spawn_alloc(1);
    assert_int_equal(spool_group_spawn(&g, count_job, NULL), 0);
    spool__test_fail_spawn_alloc(0);
    spool_group_wait(&g);
}
#endif

static void test_timeline_marks_run_at_spawn(void **state)
{
    (void)state;
#if SPOOL_TRACING
    spool_pool_t *p;
    spool_config_t c = {.num_threads = 2};
    assert_int_equal(spool_pool_create(&c, &p), 0);
    assert_int_equal(spool_pool_trace_start(p, 1 << 10), 0);
    atomic_store(&ran, 0);
    assert_int_equal(spool_pool_install(p, spawn_without_memory, NULL), 0);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(spool_pool_trace_stop(p), 0);
    static char buf[1 << 18];
    assert_true(test_trace_json(p, buf, sizeof buf));
    assert_non_null(strstr(buf, "run at its spawn"));
    assert_int_equal(spool_pool_destroy(p), 0);
#endif
}

/* ---- misuse aborts -------------------------------------------------------- */

static void wait_twice(void)
{
    spool_group_t g;
    spool_group_init(&g);
    spool_group_wait(&g);
    spool_group_wait(&g);
}

static void out_of_order(void)
{
    spool_group_t a, b;
    spool_group_init(&a);
    spool_group_init(&b);
    spool_group_wait(&a);
}

static void out_of_order_on_worker(void *arg)
{
    (void)arg;
    out_of_order();
}

static void out_of_order_worker(void)
{
    /* A pool of this (forked) process: the parent's has no threads here. */
    spool_pool_t *p;
    if (spool_pool_create(NULL, &p) == 0)
        spool_pool_install(p, out_of_order_on_worker, NULL);
}

static void wait_elsewhere(void *arg)
{
    spool_group_wait(arg);
}

/* Opened here, waited for on a worker of a pool of this (forked)
 * process. */
static void other_thread(void)
{
    spool_group_t g;
    spool_group_init(&g);
    spool_pool_t *p;
    if (spool_pool_create(NULL, &p) == 0)
        spool_pool_install(p, wait_elsewhere, &g);
}

static void init_null(void)
{
    spool_group_init(NULL);
}

static void test_misuse_aborts(void **state)
{
    (void)state;
    assert_int_equal(test_expect_abort(wait_twice, "spool_group_wait: the group is not open"), 0);
    assert_int_equal(test_expect_abort(out_of_order, "spool_group_wait: groups opened"), 0);
    assert_int_equal(test_expect_abort(out_of_order_worker, "spool_group_wait: groups opened"), 0);
    assert_int_equal(test_expect_abort(other_thread, "spool_group_wait: called by another thread"),
                     0);
    assert_int_equal(test_expect_abort(init_null, "spool_group_init: NULL group"), 0);
}

int main(void)
{
    /* test_timeline_marks_run_at_spawn starts its own trace: the suite
     * may run with SPOOL_TRACE set for every other test. */
    unsetenv("SPOOL_TRACE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_semantics),
        cmocka_unit_test(test_copy_bad_input),
        cmocka_unit_test(test_nested_groups),
        cmocka_unit_test(test_groups_in_loop),
        cmocka_unit_test(test_loop_parts_spawn_into_group),
        cmocka_unit_test(test_group_order),
        cmocka_unit_test(test_cancelled_copies_freed),
        cmocka_unit_test(test_no_memory_runs_at_spawn),
        cmocka_unit_test(test_timeline_marks_run_at_spawn),
        cmocka_unit_test(test_misuse_aborts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
