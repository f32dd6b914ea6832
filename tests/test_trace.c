/*
 * The timeline: spool_pool_trace_start/stop/write and SPOOL_TRACE.  The
 * behaviour checks that need a JSON parser are in trace_check.py: this test
 * writes traces and, beside each, what the checker must find in it
 * (NAME.expect: one line per job, "job ARG WORKER"), into the directory
 * SPOOL_TEST_TRACE_DIR (default: a new one under /tmp).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "pool_idle.h"
#include "scheduler/worker.h"
#include "test_util.h"

#ifdef SPOOL_TRACING

static char dir[512];

static const char *out_path(const char *name)
{
    static _Thread_local char path[640];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* ---- a workload that knows where each job ran -------------------------- */

enum { MAX_JOBS = 4096 };

typedef struct job_record {
    unsigned id;
    atomic_int worker; /* where it ran; -1 before */
} job_record_t;

static job_record_t jobs[MAX_JOBS];

static void busy_wait_us(unsigned us)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t1);
    while ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000 < (long)us);
}

static void spawned(spool_scope_t *scope, void *arg)
{
    (void)scope;
    job_record_t *j = arg;
    atomic_store(&j->worker, spool_current_thread_index());
    busy_wait_us(20);
}

static void leaf_b(void *arg)
{
    busy_wait_us(30);
    (void)arg;
}

static void leaf_a(void *arg)
{
    busy_wait_us(30);
    (void)arg;
}

/* Joins whose second halves get stolen: waits and flows on the timeline. */
static void join_tree(void *arg)
{
    uintptr_t depth = (uintptr_t)arg;
    if (depth == 0) {
        spool_join(leaf_a, NULL, leaf_b, NULL);
        return;
    }
    spool_join(join_tree, (void *)(depth - 1), join_tree, (void *)(depth - 1));
}

typedef struct workload {
    unsigned count;
} workload_t;

static void spawn_all(spool_scope_t *scope, void *arg)
{
    workload_t *w = arg;
    for (unsigned i = 0; i < w->count; i++)
        assert_int_equal(spool_scope_spawn(scope, spawned, &jobs[i]), 0);
}

static void workload(void *arg)
{
    spool_scope(spawn_all, arg);
    join_tree((void *)(uintptr_t)6);
}

static void reset_jobs(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        jobs[i].id = i;
        atomic_store(&jobs[i].worker, -1);
    }
}

/* NAME.expect for the checker: every spawned job, by argument, and where it
 * ran; `lost WORKER N` lines when the test knows the losses. */
static void write_expect(const char *name, unsigned n)
{
    char file[600];
    int len = snprintf(file, sizeof file, "%s/%s.expect", dir, name);
    assert_true(len > 0 && (size_t)len < sizeof file);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "job 0x%llx %d\n", (unsigned long long)(uintptr_t)&jobs[i],
                atomic_load(&jobs[i].worker));
    assert_int_equal(fclose(f), 0);
}

static void test_records_jobs_where_they_ran(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 3, .thread_name = "traced"};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_trace_start(pool, 1 << 15), 0);
    unsigned n = (unsigned)test_iters("SPOOL_TEST_TRACE_JOBS", 600);
    if (n > MAX_JOBS)
        n = MAX_JOBS;
    reset_jobs(n);
    workload_t w = {n};
    assert_int_equal(spool_pool_install(pool, workload, &w), 0);
    /* A worker appends a job's record after the job, which may be after
     * install returns; asleep, every worker has appended all of its records
     * (it writes none while it sleeps), and the stop keeps them. */
    assert_true(test_wait_pool_asleep(pool, 5000));
    assert_int_equal(spool_pool_trace_stop(pool), 0);
    assert_int_equal(spool_pool_trace_write(pool, out_path("jobs.json")), 0);
    assert_int_equal(spool_pool_trace_write(pool, out_path("jobs.html")), 0);
    write_expect("jobs", n);
    /* The rings held everything: no loss to excuse a missing job. */
    spool__trace_t *t = pool->trace.last;
    for (unsigned i = 0; i < 3; i++)
        assert_true(atomic_load(&t->rings[i].written) <= t->capacity);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- a full ring ------------------------------------------------------------- */

static void note_ran(void *arg)
{
    job_record_t *j = arg;
    atomic_store(&j->worker, spool_current_thread_index());
}

static void test_full_ring_keeps_the_newest(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    enum { CAPACITY = 8, INSTALLS = 100 };
    assert_int_equal(spool_pool_trace_start(pool, CAPACITY), 0);
    reset_jobs(INSTALLS);
    for (unsigned i = 0; i < INSTALLS; i++)
        assert_int_equal(spool_pool_install(pool, note_ran, &jobs[i]), 0);
    /* Let the worker end its last search and fall asleep: a record it is
     * writing when the ring is read hides the oldest one (trace.md), and
     * a search that began before the stop still writes into this ring. */
    assert_true(test_wait_pool_asleep(pool, 5000));
    assert_int_equal(spool_pool_trace_stop(pool), 0);
    /* Read the ring as trace_write does: the newest CAPACITY records, and
     * the count of all of them. */
    spool__trace_t *t = pool->trace.last;
    spool__trace_copy_t copy[CAPACITY];
    uint64_t recorded;
    size_t kept = spool__trace_ring_copy(&t->rings[0], CAPACITY, UINT64_MAX, copy, &recorded);
    assert_int_equal(kept, CAPACITY);
    assert_true(recorded >= INSTALLS); /* a job record per install, and searches */
    /* The job records kept are the last installs, in order. */
    unsigned next = INSTALLS;
    for (size_t k = CAPACITY; k-- > 0;) {
        if ((copy[k].info & 15u) != SPOOL__TRACE_JOB)
            continue;
        next--;
        assert_ptr_equal((void *)(uintptr_t)copy[k].arg, &jobs[next]);
    }
    assert_true(next < INSTALLS);
    assert_int_equal(spool_pool_trace_write(pool, out_path("full.json")), 0);
    char file[600];
    snprintf(file, sizeof file, "%s/full.expect", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fprintf(f, "records 0 %d\nlost 0 %llu\n", CAPACITY,
            (unsigned long long)(recorded - CAPACITY));
    assert_int_equal(fclose(f), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- errors ------------------------------------------------------------------ */

static void test_errors(void **state)
{
    (void)state;
    assert_int_equal(spool_pool_trace_start(NULL, 16), EINVAL);
    assert_int_equal(spool_pool_trace_stop(NULL), EINVAL);
    assert_int_equal(spool_pool_trace_write(NULL, "x.json"), EINVAL);
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_trace_write(pool, out_path("never.json")), EINVAL);
    assert_int_equal(spool_pool_trace_stop(pool), EALREADY);
    assert_int_equal(spool_pool_trace_start(pool, 0), EINVAL);
    assert_int_equal(spool_pool_trace_start(pool, SIZE_MAX / 2), ENOMEM);
    assert_int_equal(spool_pool_trace_start(pool, 4096), 0);
    assert_int_equal(spool_pool_trace_start(pool, 4096), EALREADY);
    reset_jobs(64);
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(spool_pool_install(pool, note_ran, &jobs[i]), 0);
    /* The last job's record may come after install returns (as above). */
    assert_true(test_wait_pool_asleep(pool, 5000));
    assert_int_equal(spool_pool_trace_stop(pool), 0);
    assert_int_equal(spool_pool_trace_stop(pool), EALREADY);
    assert_int_equal(spool_pool_trace_write(pool, NULL), EINVAL);
    assert_int_equal(spool_pool_trace_write(pool, out_path("trace.txt")), EINVAL);
    assert_int_equal(spool_pool_trace_write(pool, out_path("no-such-dir/t.json")), ENOENT);
    assert_int_equal(spool_pool_trace_write(pool, out_path("no-such-dir/t.html")), ENOENT);
    /* A path through a file, and a directory named like a trace. */
    assert_int_equal(spool_pool_trace_write(pool, out_path("jobs.json/t.json")), ENOTDIR);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/adir.json", dir);
    assert_true(mkdir(sub, 0700) == 0 || errno == EEXIST);
    assert_int_equal(spool_pool_trace_write(pool, sub), EISDIR);
    /* Nothing lost: the trace is still there and complete after the
     * failures.  The checker finds all 64 installs in it. */
    assert_int_equal(spool_pool_trace_write(pool, out_path("after-errors.json")), 0);
    write_expect("after-errors", 64);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* ---- start, stop and write while the pool runs, from any thread --------- */

typedef struct churn {
    spool_pool_t *pool;
    atomic_bool stop;
    atomic_uint writes_from_workers;
} churn_t;

static void small_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    (void)arg;
    busy_wait_us(5);
}

static void write_from_worker(void *arg)
{
    churn_t *c = arg;
    char name[64];
    unsigned k = atomic_fetch_add(&c->writes_from_workers, 1);
    snprintf(name, sizeof name, "churn-worker-%u.json", k % 4);
    /* EINVAL only before the first start. */
    int err = spool_pool_trace_write(c->pool, out_path(name));
    assert_true(err == 0 || err == EINVAL);
}

static void keep_busy(spool_scope_t *scope, void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(spool_scope_spawn(scope, small_job, NULL), 0);
}

/* From outside: jobs that write the trace from a worker. */
static void *submitter(void *arg)
{
    churn_t *c = arg;
    while (!atomic_load(&c->stop)) {
        assert_int_equal(spool_pool_install(c->pool, write_from_worker, c), 0);
        busy_wait_us(200);
    }
    return NULL;
}

static void run_scope(void *arg)
{
    spool_scope(keep_busy, arg);
}

static void *busy_submitter(void *arg)
{
    churn_t *c = arg;
    while (!atomic_load(&c->stop))
        assert_int_equal(spool_pool_install(c->pool, run_scope, c), 0);
    return NULL;
}

static void test_start_stop_write_while_running(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 3};
    churn_t c = {.writes_from_workers = 0};
    assert_int_equal(spool_pool_create(&config, &c.pool), 0);
    atomic_init(&c.stop, false);
    pthread_t busy, writer;
    assert_int_equal(pthread_create(&busy, NULL, busy_submitter, &c), 0);
    assert_int_equal(pthread_create(&writer, NULL, submitter, &c), 0);
    unsigned rounds = (unsigned)test_iters("SPOOL_TEST_TRACE_ROUNDS", 30);
    for (unsigned r = 0; r < rounds; r++) {
        /* Small rings: they wrap while being read. */
        assert_int_equal(spool_pool_trace_start(c.pool, 64 + r), 0);
        busy_wait_us(500);
        char name[64];
        snprintf(name, sizeof name, "churn-%u.%s", r % 4, r % 2 ? "html" : "json");
        assert_int_equal(spool_pool_trace_write(c.pool, out_path(name)), 0);
        assert_int_equal(spool_pool_trace_stop(c.pool), 0);
    }
    atomic_store(&c.stop, true);
    pthread_join(busy, NULL);
    pthread_join(writer, NULL);
    assert_true(atomic_load(&c.writes_from_workers) > 0);
    assert_int_equal(spool_pool_destroy(c.pool), 0);
}

/* ---- SPOOL_TRACE ----------------------------------------------------------- */

/* A pool of two created with SPOOL_TRACE set to DIR/PREFIX-%p.json (the
 * pool reads it when created; the variable is put back at once). */
static spool_pool_t *pool_under_env(const char *prefix)
{
    char pattern[600];
    snprintf(pattern, sizeof pattern, "%s/%s-%%p.json", dir, prefix);
    char *old = getenv("SPOOL_TRACE") ? strdup(getenv("SPOOL_TRACE")) : NULL;
    setenv("SPOOL_TRACE", pattern, 1);
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    if (old != NULL) {
        setenv("SPOOL_TRACE", old, 1);
        free(old);
    } else {
        unsetenv("SPOOL_TRACE");
    }
    return pool;
}

static void test_environment(void **state)
{
    (void)state;
    spool_pool_t *pool = pool_under_env("env");
    /* Already recording: the environment started it. */
    assert_int_equal(spool_pool_trace_start(pool, 16), EALREADY);
    reset_jobs(32);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(spool_pool_install(pool, note_ran, &jobs[i]), 0);
    assert_int_equal(spool_pool_destroy(pool), 0); /* writes the file */
    char file[700];
    snprintf(file, sizeof file, "%s/env-%ld.json", dir, (long)getpid());
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_true(st.st_size > 0);
    char expect[700];
    snprintf(expect, sizeof expect, "env-%ld", (long)getpid());
    write_expect(expect, 32);
}

/* SPOOL_TRACE with a name whose extension gives no format: one line when
 * the pool is created (not after the run, at its end), and no trace. */
static void test_environment_bad_extension(void **state)
{
    (void)state;
    char path[600], log[600];
    snprintf(path, sizeof path, "%s/bad-ext.txt", dir);
    snprintf(log, sizeof log, "%s/bad-ext.log", dir);
    char *old = getenv("SPOOL_TRACE") ? strdup(getenv("SPOOL_TRACE")) : NULL;
    setenv("SPOOL_TRACE", path, 1);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *f = fopen(log, "w");
    assert_non_null(f);
    dup2(fileno(f), STDERR_FILENO);
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    int err = spool_pool_create(&config, &pool);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    fclose(f);
    if (old != NULL) {
        setenv("SPOOL_TRACE", old, 1);
        free(old);
    } else {
        unsetenv("SPOOL_TRACE");
    }
    assert_int_equal(err, 0);
    char text[1024] = {0};
    f = fopen(log, "r");
    assert_non_null(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(got > 0);
    assert_non_null(strstr(text, "SPOOL_TRACE="));
    assert_non_null(strstr(text, "must end in .json, .html or .htm"));
    /* Not recording: a trace can be started by hand. */
    assert_int_equal(spool_pool_trace_start(pool, 16), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
}

/* A cancelled scope's jobs, dropped unrun: each is a job span marked so. */
static atomic_int dropped_ran;

static void dropped_job(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_fetch_add(&dropped_ran, 1);
}

static void spawn_then_cancel(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        assert_int_equal(spool_scope_spawn(s, dropped_job, NULL), 0);
    assert_int_equal(spool_scope_cancel(s), 0);
    assert_int_equal(spool_scope_spawn(s, dropped_job, NULL), ECANCELED);
}

static void cancelled_scope(void *arg)
{
    (void)arg;
    spool_scope(spawn_then_cancel, NULL);
}

static void test_dropped_jobs_marked(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_trace_start(pool, 4096), 0);
    assert_int_equal(spool_pool_install(pool, cancelled_scope, NULL), 0);
    assert_int_equal(atomic_load(&dropped_ran), 0);
    assert_int_equal(atomic_load(&pool->workers[0].jobs_dropped), 100);
    assert_int_equal(spool_pool_trace_write(pool, out_path("dropped.json")), 0);
    assert_int_equal(spool_pool_trace_write(pool, out_path("dropped.html")), 0);
    FILE *f = fopen(out_path("dropped.expect"), "w");
    assert_non_null(f);
    fprintf(f, "dropped 100 -\n");
    assert_int_equal(fclose(f), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* The timeline records and decides nothing (wait.md): on a pool of one
 * worker, the same program runs its jobs in the same order traced and not.
 * The program mixes what the take loop meets: LIFO and FIFO scopes with
 * spawns that spawn (several blocks and tickets), a task group of copies,
 * joins, a loop and a chain of tasks; every job appends its id. */
enum { ORDER_MAX = 4096 };
static int order_log[ORDER_MAX];
static int order_len;

static void log_id(int id)
{
    if (order_len < ORDER_MAX)
        order_log[order_len++] = id;
}

static void order_leaf(spool_scope_t *s, void *arg)
{
    (void)s;
    log_id((int)(intptr_t)arg);
}

static void order_spawner(spool_scope_t *s, void *arg)
{
    int id = (int)(intptr_t)arg;
    log_id(id);
    if (id % 5 == 0)
        for (int k = 1; k <= 2; k++)
            assert_int_equal(spool_scope_spawn(s, order_leaf, (void *)(intptr_t)(id * 10 + k)), 0);
}

static void order_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < 150; i++)
        assert_int_equal(spool_scope_spawn(s, order_spawner, (void *)(intptr_t)(1000 + i)), 0);
}

static void order_copy(spool_scope_t *s, void *arg)
{
    (void)s;
    log_id(*(const int *)arg);
}

static void order_join_leaf(void *arg)
{
    log_id((int)(intptr_t)arg);
}

static void order_join(void *arg)
{
    int d = (int)(intptr_t)arg;
    if (d == 0) {
        spool_join(order_join_leaf, (void *)(intptr_t)7001, order_join_leaf, (void *)(intptr_t)7002);
        return;
    }
    spool_join(order_join, (void *)(intptr_t)(d - 1), order_join, (void *)(intptr_t)(d - 1));
}

static void order_part(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    log_id((int)(8000 + b));
    (void)e;
}

static void order_task(void *arg)
{
    log_id((int)(intptr_t)arg);
}

static void order_program(void *arg)
{
    (void)arg;
    spool_scope(order_body, NULL);
    spool_scope_fifo(order_body, NULL);
    spool_group_t g;
    spool_group_init(&g);
    for (int i = 0; i < 70; i++) {
        int id = 5000 + i;
        assert_int_equal(spool_group_spawn_copy(&g, order_copy, &id, sizeof id), 0);
    }
    spool_group_wait(&g);
    order_join((void *)(intptr_t)3);
    spool_for_opts_t o = {.max_len = 16};
    spool_for(0, 256, &o, order_part, NULL);
    spool_task_t *t[8];
    for (int i = 0; i < 8; i++) {
        assert_int_equal(spool_task_create(NULL, order_task, (void *)(intptr_t)(9000 + i), &t[i]), 0);
        if (i > 0)
            assert_int_equal(spool_task_precede(t[i - 1], t[i]), 0);
    }
    for (int i = 8; i-- > 0;)
        assert_int_equal(spool_task_submit(t[i]), 0);
    assert_int_equal(spool_task_wait(t[7]), 0);
    for (int i = 0; i < 8; i++)
        spool_task_release(t[i]);
}

static void test_trace_decides_nothing(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 1};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    static int untraced[ORDER_MAX];
    order_len = 0;
    assert_int_equal(spool_pool_install(pool, order_program, NULL), 0);
    int n = order_len;
    memcpy(untraced, order_log, sizeof untraced);
    assert_true(n > 500 && n < ORDER_MAX);
    assert_int_equal(spool_pool_trace_start(pool, 1 << 14), 0);
    order_len = 0;
    assert_int_equal(spool_pool_install(pool, order_program, NULL), 0);
    assert_int_equal(spool_pool_trace_stop(pool), 0);
    assert_int_equal(order_len, n);
    for (int i = 0; i < n; i++)
        if (order_log[i] != untraced[i])
            fail_msg("job %d of %d: %d traced, %d untraced", i, n, order_log[i], untraced[i]);
    /* It did record: each spawned call (2 x (150 + 30 x 2) into the scopes,
     * 70 copies) is a record of its own there, besides searches and the
     * jobs that the take loop ran (the joins' b run inline are not). */
    assert_true(pool->trace.last->stop_written[0] >= 2 * (150 + 60) + 70);
    assert_int_equal(spool_pool_trace_write(pool, out_path("order.json")), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

/* A pool that never gets a job: each worker's first search lasts from the
 * pool's start to its end, and its row must still show it asleep. */
static void test_environment_idle_pool(void **state)
{
    (void)state;
    spool_pool_t *pool = pool_under_env("idle");
    assert_true(test_wait_pool_asleep(pool, 5000));
    assert_int_equal(spool_pool_destroy(pool), 0); /* writes the file */
    char name[64];
    snprintf(name, sizeof name, "idle-%ld.expect", (long)getpid());
    FILE *f = fopen(out_path(name), "w");
    assert_non_null(f);
    fprintf(f, "spans 0 sleep\nspans 1 sleep\n");
    assert_int_equal(fclose(f), 0);
}

int main(void)
{
    /* These tests start their own traces (test_environment sets it itself):
     * the suite may run with SPOOL_TRACE set for every other test. */
    unsetenv("SPOOL_TRACE");
    const char *d = getenv("SPOOL_TEST_TRACE_DIR");
    if (d != NULL && d[0] != '\0') {
        snprintf(dir, sizeof dir, "%s", d);
        mkdir(dir, 0700);
    } else {
        snprintf(dir, sizeof dir, "/tmp/spool-trace-XXXXXX");
        if (mkdtemp(dir) == NULL)
            return 1;
    }
    printf("traces in %s\n", dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_jobs_where_they_ran),
        cmocka_unit_test(test_full_ring_keeps_the_newest),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_start_stop_write_while_running),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_environment_bad_extension),
        cmocka_unit_test(test_environment_idle_pool),
        cmocka_unit_test(test_dropped_jobs_marked),
        cmocka_unit_test(test_trace_decides_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built with -DSPOOL_TRACE=OFF: every trace call says so */

static void test_trace_calls_not_supported(void **state)
{
    (void)state;
    setenv("SPOOL_TRACE", "/tmp/spool-trace-off-%p.json", 1); /* ignored */
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    assert_int_equal(spool_pool_trace_start(pool, 64), ENOTSUP);
    assert_int_equal(spool_pool_trace_stop(pool), ENOTSUP);
    assert_int_equal(spool_pool_trace_write(pool, "/tmp/spool-trace-off.json"), ENOTSUP);
    assert_int_equal(spool_pool_destroy(pool), 0);
    unsetenv("SPOOL_TRACE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_calls_not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
