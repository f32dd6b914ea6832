/* Typed tasks' frames on their threads' frame deques (join/typed_frames.c,
 * scheduler/frame_jobs.c; frames/frames.md): a stolen frame runs in its
 * spawner's context (a cancelled scope reaches it, an isolation region
 * holds on its thief), the timeline shows it as a stolen job and its sync
 * as a wait, frames too large for a cell are stolen through their forks,
 * unsynced spawns are pending tasks, and SPOOL_RUN works from every kind
 * of thread: a worker, the caller
 * slot's holder, a thread of its own with no pool. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "spool_trace.h"
#include "spool_typed.h"
#include "pool_idle.h"
#include "test_util.h"

/* Works for ns of wall time, yielding: valgrind runs one thread at a time
 * and switches seldom, so a thief gets to steal only when a worker yields. */
static void work_ns(long ns)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (test_ns_since(&start) < ns)
        sched_yield();
}

/* ---- a stolen frame in its spawner's scope ---------------------------------- */

static void probe_cancelled(spool_scope_t *scope, void *arg)
{
    *(int *)arg = spool_scope_is_cancelled(scope);
}

typedef struct tally {
    long cancelled, stolen, nodes;
} tally_t;

/* A tree of frames, each of which counts whether a scope made in its body
 * is cancelled and whether it ran elsewhere than its spawner: the frames a
 * thief spawns are stolen from it in turn, and keep the context too. */
SPOOL_TASK_2(tally_t, ctx_tree, int, depth, int, spawner)
{
    int me = spool_current_thread_index();
    tally_t t = {0, me != spawner, 1};
    if (depth > 0) {
        SPOOL_SPAWN(ctx_tree, depth - 1, me);
        tally_t a = SPOOL_CALL(ctx_tree, depth - 1, me);
        tally_t b = SPOOL_SYNC(ctx_tree);
        t.cancelled = a.cancelled + b.cancelled;
        t.stolen += a.stolen + b.stolen;
        t.nodes += a.nodes + b.nodes;
    } else {
        work_ns(20000);
    }
    int cancelled = -1;
    spool_in_place_scope(probe_cancelled, &cancelled);
    t.cancelled += cancelled;
    return t;
}

static void cancelled_body(spool_scope_t *scope, void *arg)
{
    assert_int_equal(spool_scope_cancel(scope), 0);
    *(tally_t *)arg = SPOOL_RUN(ctx_tree, 6, spool_current_thread_index());
}

static void in_cancelled_scope(void *arg)
{
    spool_scope(cancelled_body, arg);
}

static void test_stolen_frame_in_its_scope(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(4);
    long stolen = 0;
    for (int r = 0; r < 100 && stolen < 3; r++) {
        tally_t t = {0, 0, 0};
        assert_int_equal(spool_pool_install(pool, in_cancelled_scope, &t), 0);
        assert_int_equal(t.nodes, 127);
        assert_int_equal(t.cancelled, 127); /* stolen ones too, and theirs */
        stolen += t.stolen;
    }
    assert_true(stolen >= 3);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- a stolen frame in its spawner's isolation region ----------------------- */

/* How many region frames this thread is running: a job of no region that
 * starts while it is not 0 broke isolation (a thief waiting inside a
 * stolen region frame took it). */
static _Thread_local int region_frames;
static atomic_int isolation_broken;

SPOOL_TASK_1(long, region_tree, int, depth)
{
    region_frames++;
    long r = 1;
    if (depth == 0) {
        work_ns(20000);
    } else {
        SPOOL_SPAWN(region_tree, depth - 1);
        long a = SPOOL_CALL(region_tree, depth - 1);
        r = a + SPOOL_SYNC(region_tree);
    }
    region_frames--;
    return r;
}

static void outside_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    if (region_frames != 0)
        atomic_store(&isolation_broken, 1);
    work_ns(20000);
}

static void isolated(void *arg)
{
    *(long *)arg = SPOOL_RUN(region_tree, 7);
}

static void isolating_body(spool_scope_t *scope, void *arg)
{
    (void)arg;
    for (int i = 0; i < 64; i++)
        assert_int_equal(spool_scope_spawn(scope, outside_job, NULL), 0);
    long r = 0;
    spool_isolate(isolated, &r);
    assert_int_equal(r, 128);
}

static void isolating(void *arg)
{
    (void)arg;
    spool_scope(isolating_body, NULL);
}

static void test_stolen_frame_in_its_region(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(4);
    for (int r = 0; r < 20; r++)
        assert_int_equal(spool_pool_install(pool, isolating, NULL), 0);
    assert_int_equal(atomic_load(&isolation_broken), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- the timeline ------------------------------------------------------------ */

/* The oldest, stolen, holds on until its spawner's syncs are about to come
 * to it, then sleeps (under valgrind, which runs one thread at a time, a
 * busy thief would finish first): its thief is still at it when its
 * spawner's sync comes to it. */
static atomic_int burst_spawner;
static atomic_bool burst_reached;

SPOOL_TASK_1(long, traced_leaf, long, n)
{
    if (n == 0 && spool_current_thread_index() != atomic_load(&burst_spawner)) {
        while (!atomic_load(&burst_reached))
            sched_yield();
        test_sleep_ms(2);
    } else {
        work_ns(20000);
    }
    if (n == 1) /* the last sync before the oldest's */
        atomic_store(&burst_reached, true);
    return n;
}

SPOOL_TASK_1(long, traced_burst, int, k)
{
    atomic_store(&burst_spawner, spool_current_thread_index());
    atomic_store(&burst_reached, false);
    for (int i = 0; i < k; i++)
        SPOOL_SPAWN(traced_leaf, i);
    long s = 0;
    for (int i = 0; i < k; i++)
        s += SPOOL_SYNC(traced_leaf);
    return s;
}

static void test_stolen_frames_on_the_timeline(void **state)
{
    (void)state;
    spool_pool_t *pool = test_pool(3);
#if !SPOOL_TRACING /* built with -DSPOOL_TRACE=OFF: no timeline to show them */
    assert_int_equal(spool_pool_trace_start(pool, 1 << 14), ENOTSUP);
    assert_int_equal(SPOOL_RUN_IN(pool, traced_burst, 32), 31 * 32 / 2);
    assert_int_equal(spool_pool_destroy(pool), 0);
#else
    assert_int_equal(spool_pool_trace_start(pool, 1 << 14), 0);
    static char json[1 << 21];
    char fn[40];
    snprintf(fn, sizeof fn, "\"fn\":\"0x%llx\"",
             (unsigned long long)(uintptr_t)(void (*)(void))traced_leaf_spool_steal);
    /* A stolen frame's record names its task's steal function (as fn), and
     * so does its spawner's wait for it: one record a line. */
    bool stolen = false, waited = false;
    for (int r = 0; r < 50 && !(stolen && waited); r++) {
        assert_int_equal(SPOOL_RUN_IN(pool, traced_burst, 32), 31 * 32 / 2);
        /* A thief appends a job's record after the job, which may be after
         * its spawner's sync: asleep, every worker has appended them. */
        assert_true(test_wait_pool_asleep(pool, 5000));
        assert_true(test_trace_json(pool, json, sizeof json));
        for (char *line = json; line != NULL && *line != '\0';) {
            char *end = strchr(line, '\n');
            if (end != NULL)
                *end = '\0';
            if (strstr(line, fn) != NULL) {
                stolen |= strstr(line, "\"from\":\"stolen from worker") != NULL;
                waited |= strstr(line, "\"cat\":\"wait\"") != NULL;
            }
            line = end != NULL ? end + 1 : NULL;
        }
    }
    assert_true(stolen);
    assert_true(waited);
    assert_int_equal(spool_pool_trace_stop(pool), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
#endif
}

/* ---- frames too large for a cell ---------------------------------------------- */

typedef struct wide {
    long v[8];
} wide_t;

/* Arguments of 64 bytes: the frame stack and a fork.  1 if it ran
 * elsewhere than its spawner. */
SPOOL_TASK_2(int, wide_leaf, wide_t, w, int, spawner)
{
    work_ns(100000);
    return w.v[7] == 7 && spool_current_thread_index() != spawner;
}

SPOOL_TASK_1(long, wide_burst, int, k)
{
    wide_t w = {{0, 1, 2, 3, 4, 5, 6, 7}};
    int me = spool_current_thread_index();
    for (int i = 0; i < k; i++)
        SPOOL_SPAWN(wide_leaf, w, me);
    long elsewhere = 0;
    for (int i = 0; i < k; i++)
        elsewhere += SPOOL_SYNC(wide_leaf);
    return elsewhere;
}

static void test_wide_frames_stolen(void **state)
{
    (void)state;
    _Static_assert(sizeof(struct wide_leaf_spool_frame) > sizeof(struct spool__cell_v4),
                   "the frame must not fit a cell");
    spool_pool_t *pool = test_pool(4);
    long elsewhere = 0;
    for (int r = 0; r < 100 && elsewhere == 0; r++)
        elsewhere += SPOOL_RUN_IN(pool, wide_burst, 32);
    assert_true(elsewhere > 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- the pending-task hint -------------------------------------------------- */

SPOOL_TASK_0(int, pending_seen)
{
    int before = spool_current_thread_has_pending_tasks();
    SPOOL_SPAWN(traced_leaf, 1);
    int during = spool_current_thread_has_pending_tasks();
    long r = SPOOL_SYNC(traced_leaf);
    int after = spool_current_thread_has_pending_tasks();
    return before == 0 && during == 1 && after == 0 && r == 1;
}

static void test_pending_hint(void **state)
{
    (void)state;
    spool_pool_t *one = test_pool(1); /* no thief: the spawn stays */
    assert_int_equal(SPOOL_RUN_IN(one, pending_seen), 1);
    assert_int_equal(spool_pool_destroy(one), 0);
}

/* ---- SPOOL_RUN from every kind of thread -------------------------------------- */

SPOOL_TASK_1(long, tfib, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(tfib, n - 2);
    long a = SPOOL_CALL(tfib, n - 1);
    return a + SPOOL_SYNC(tfib);
}

static void *own_thread(void *arg)
{
    (void)arg;
    /* Outside any pool, the global pool's caller slot, and nested inside
     * a task of another pool's worker. */
    return (void *)(uintptr_t)(SPOOL_RUN(tfib, 20) == 6765);
}

static void nested_in_worker(void *arg)
{
    long *out = arg;
    *out = SPOOL_RUN(tfib, 18);
}

SPOOL_TASK_1(long, runs_inside, spool_pool_t *, other)
{
    long inner = 0;
    /* A task's body that runs another pool's task, and one of its own. */
    assert_int_equal(spool_pool_install(other, nested_in_worker, &inner), 0);
    return inner + SPOOL_RUN(tfib, 15);
}

static void test_run_from_every_thread(void **state)
{
    (void)state;
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, own_thread, NULL), 0);
    spool_pool_t *a = test_pool(2), *b = test_pool(3);
    assert_int_equal(SPOOL_RUN_IN(a, runs_inside, b), 2584 + 610);
    for (int i = 0; i < 3; i++) {
        void *ok;
        assert_int_equal(pthread_join(t[i], &ok), 0);
        assert_true(ok != NULL);
    }
    assert_int_equal(spool_pool_destroy(a), 0);
    assert_int_equal(spool_pool_destroy(b), 0);
}

int main(void)
{
    /* test_stolen_frames_on_the_timeline starts its own trace: the suite
     * may run with SPOOL_TRACE set for every other test. */
    unsetenv("SPOOL_TRACE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stolen_frame_in_its_scope),
        cmocka_unit_test(test_stolen_frame_in_its_region),
        cmocka_unit_test(test_stolen_frames_on_the_timeline),
        cmocka_unit_test(test_wide_frames_stolen),
        cmocka_unit_test(test_pending_hint),
        cmocka_unit_test(test_run_from_every_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
