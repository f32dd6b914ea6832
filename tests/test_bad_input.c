/* The bad-input table: each misuse gets its documented errno (or abort
 * message), and nothing already accepted is lost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spool.h"
#include "test_util.h"

static spool_pool_t *pool; /* 2 threads, made by main() */
static atomic_long counted;

static void noop_scope(spool_scope_t *s, void *arg)
{
    (void)s;
    (void)arg;
}
static void count(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counted, 1);
}

/* ---- the errno table ---------------------------------------------------- */

typedef struct errno_case {
    const char *what;
    int (*call)(void);
    int expected;
} errno_case_t;

static int create_null_out(void)
{
    return spool_pool_create(NULL, NULL);
}
static int create_too_many_threads(void)
{
    spool_pool_t *p = (spool_pool_t *)&p; /* must stay untouched */
    spool_config_t c = {.num_threads = SPOOL_MAX_THREADS + 1};
    int err = spool_pool_create(&c, &p);
    return p == (spool_pool_t *)&p ? err : -1;
}
static int create_tiny_stack(void)
{
    spool_pool_t *p = NULL;
    spool_config_t c = {.num_threads = 2, .stack_size = 1};
    int err = spool_pool_create(&c, &p);
    return p == NULL ? err : -1;
}
static int create_null_fields(void)
{
    spool_pool_t *p;
    spool_config_t c = {.num_threads = 1, .thread_name = NULL, .start_handler = NULL};
    int err = spool_pool_create(&c, &p);
    if (err == 0)
        err = spool_pool_destroy(p);
    return err;
}
static int destroy_null(void)
{
    return spool_pool_destroy(NULL);
}
static int install_null_pool(void)
{
    return spool_pool_install(NULL, test_nothing, NULL);
}
static int install_null_fn(void)
{
    return spool_pool_install(pool, NULL, NULL);
}
static int spawn_null_fn(void)
{
    return spool_spawn(NULL, NULL);
}
static int spawn_fifo_null_fn(void)
{
    return spool_spawn_fifo(NULL, NULL);
}
static int pool_spawn_null_pool(void)
{
    return spool_pool_spawn(NULL, test_nothing, NULL);
}
static int pool_spawn_null_fn(void)
{
    return spool_pool_spawn(pool, NULL, NULL);
}
static int pool_spawn_fifo_null_pool(void)
{
    return spool_pool_spawn_fifo(NULL, test_nothing, NULL);
}
static int scope_spawn_null_scope(void)
{
    return spool_scope_spawn(NULL, noop_scope, NULL);
}
static int scope_spawn_null_fn_result;
static void scope_spawn_null_fn_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    scope_spawn_null_fn_result = spool_scope_spawn(s, NULL, NULL);
}
static int scope_spawn_null_fn(void)
{
    spool_scope(scope_spawn_null_fn_body, NULL);
    return scope_spawn_null_fn_result;
}
static int global_init_twice(void)
{
    spool_config_t c = {.num_threads = 2};
    int first = spool_global_init(&c); /* 0, or EALREADY if already used */
    int second = spool_global_init(&c);
    return first == 0 || first == EALREADY ? second : -1;
}

static void noop_broadcast(void *ctx, unsigned index, unsigned n)
{
    (void)ctx;
    (void)index;
    (void)n;
}
static void noop_scope_broadcast(spool_scope_t *s, void *ctx, unsigned index, unsigned n)
{
    (void)s;
    noop_broadcast(ctx, index, n);
}
static int broadcast_null_fn(void)
{
    return spool_broadcast(NULL, NULL);
}
static int pool_broadcast_null_pool(void)
{
    return spool_pool_broadcast(NULL, noop_broadcast, NULL);
}
static int pool_broadcast_null_fn(void)
{
    return spool_pool_broadcast(pool, NULL, NULL);
}
static int spawn_broadcast_null_fn(void)
{
    return spool_spawn_broadcast(NULL, NULL, NULL);
}
static int pool_spawn_broadcast_null_pool(void)
{
    return spool_pool_spawn_broadcast(NULL, noop_broadcast, NULL, NULL);
}
static int pool_spawn_broadcast_null_fn(void)
{
    return spool_pool_spawn_broadcast(pool, NULL, NULL, NULL);
}
static int scope_spawn_broadcast_null_scope(void)
{
    return spool_scope_spawn_broadcast(NULL, noop_scope_broadcast, NULL);
}
static int scope_spawn_broadcast_null_fn_result;
static void scope_spawn_broadcast_null_fn_body(spool_scope_t *s, void *arg)
{
    (void)arg;
    scope_spawn_broadcast_null_fn_result = spool_scope_spawn_broadcast(s, NULL, NULL);
}
static int scope_spawn_broadcast_null_fn(void)
{
    spool_scope(scope_spawn_broadcast_null_fn_body, NULL);
    return scope_spawn_broadcast_null_fn_result;
}

static const errno_case_t errno_cases[] = {
    {"spool_pool_create with out == NULL", create_null_out, EINVAL},
    {"spool_pool_create with num_threads above the limit", create_too_many_threads, EINVAL},
    {"spool_pool_create with a 1-byte stack", create_tiny_stack, EINVAL},
    {"spool_pool_create with NULL name and handlers", create_null_fields, 0},
    {"spool_pool_destroy(NULL)", destroy_null, EINVAL},
    {"spool_pool_install(NULL, ...)", install_null_pool, EINVAL},
    {"spool_pool_install(pool, NULL, ...)", install_null_fn, EINVAL},
    {"spool_spawn(NULL, ...)", spawn_null_fn, EINVAL},
    {"spool_spawn_fifo(NULL, ...)", spawn_fifo_null_fn, EINVAL},
    {"spool_pool_spawn(NULL, ...)", pool_spawn_null_pool, EINVAL},
    {"spool_pool_spawn(pool, NULL, ...)", pool_spawn_null_fn, EINVAL},
    {"spool_pool_spawn_fifo(NULL, ...)", pool_spawn_fifo_null_pool, EINVAL},
    {"spool_scope_spawn(NULL, ...)", scope_spawn_null_scope, EINVAL},
    {"spool_scope_spawn(scope, NULL, ...)", scope_spawn_null_fn, EINVAL},
    {"spool_broadcast(NULL, ...)", broadcast_null_fn, EINVAL},
    {"spool_pool_broadcast(NULL, ...)", pool_broadcast_null_pool, EINVAL},
    {"spool_pool_broadcast(pool, NULL, ...)", pool_broadcast_null_fn, EINVAL},
    {"spool_spawn_broadcast(NULL, ...)", spawn_broadcast_null_fn, EINVAL},
    {"spool_pool_spawn_broadcast(NULL, ...)", pool_spawn_broadcast_null_pool, EINVAL},
    {"spool_pool_spawn_broadcast(pool, NULL, ...)", pool_spawn_broadcast_null_fn, EINVAL},
    {"spool_scope_spawn_broadcast(NULL, ...)", scope_spawn_broadcast_null_scope, EINVAL},
    {"spool_scope_spawn_broadcast(scope, NULL, ...)", scope_spawn_broadcast_null_fn, EINVAL},
    {"spool_global_init twice", global_init_twice, EALREADY},
};

static void test_errno_table(void **state)
{
    (void)state;
    int threads_before = test_os_threads();
    for (size_t i = 0; i < sizeof errno_cases / sizeof errno_cases[0]; i++) {
        int got = errno_cases[i].call();
        if (got != errno_cases[i].expected)
            fail_msg("%s: got %d (%s), expected %d (%s)", errno_cases[i].what, got,
                     spool_strerror(got), errno_cases[i].expected,
                     spool_strerror(errno_cases[i].expected));
    }
    /* The failed creations left no thread behind (the global pool may have
     * started in global_init_twice). */
    assert_true(test_os_threads_at_most(threads_before + 2) <= threads_before + 2);
}

/* ---- aborts: a NULL function in a void call ----------------------------- */

typedef struct abort_case {
    const char *name;
    void (*call)(void);
} abort_case_t;

static void join_null(void)
{
    spool_join(test_nothing, NULL, NULL, NULL);
}
static void scope_null(void)
{
    spool_scope(NULL, NULL);
}
static void scope_fifo_null(void)
{
    spool_scope_fifo(NULL, NULL);
}
static void in_place_null(void)
{
    spool_in_place_scope(NULL, NULL);
}
static void in_place_fifo_null(void)
{
    spool_in_place_scope_fifo(NULL, NULL);
}

static void test_abort_table(void **state)
{
    (void)state;
    const abort_case_t cases[] = {
        {"spool_join", join_null},
        {"spool_scope", scope_null},
        {"spool_scope_fifo", scope_fifo_null},
        {"spool_in_place_scope", in_place_null},
        {"spool_in_place_scope_fifo", in_place_fifo_null},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "%s: NULL function", cases[i].name);
        int got = test_expect_abort(cases[i].call, want);
        if (got != 0)
            fail_msg("%s(NULL): %s", cases[i].name, got == 1 ? "did not abort" : "wrong message");
    }
}

/* ---- misuse with work in flight: nothing accepted is lost --------------- */

typedef struct self_destroy {
    spool_pool_t *pool;
    int err;
} self_destroy_t;

static void spawn_then_destroy_self(void *arg)
{
    self_destroy_t *s = arg;
    for (int i = 0; i < 100; i++)
        if (spool_spawn(count, NULL) != 0)
            abort();
    s->err = spool_pool_destroy(s->pool);
}

static void test_destroy_from_own_worker(void **state)
{
    (void)state;
    atomic_store(&counted, 0);
    spool_config_t c = {.num_threads = 2};
    self_destroy_t s;
    assert_int_equal(spool_pool_create(&c, &s.pool), 0);
    assert_int_equal(spool_pool_install(s.pool, spawn_then_destroy_self, &s), 0);
    assert_int_equal(s.err, EDEADLK);
    assert_int_equal(spool_pool_destroy(s.pool), 0);
    assert_int_equal(atomic_load(&counted), 100);
}

static void install_into_itself(void *arg)
{
    int *same = arg;
    int before = spool_current_thread_index();
    if (spool_pool_install(pool, test_nothing, NULL) != 0)
        abort();
    int idx = spool_current_thread_index();
    *same = before >= 0 && before == idx;
}

static void test_install_into_itself_runs_inline(void **state)
{
    (void)state;
    int same = 0;
    assert_int_equal(spool_pool_install(pool, install_into_itself, &same), 0);
    assert_true(same);
}

/* ---- the config's size: older and newer callers ------------------------- */

static unsigned created_threads(const spool_config_t *config, int *err)
{
    spool_pool_t *p = NULL;
    *err = spool_pool_create(config, &p);
    if (*err != 0)
        return 0;
    unsigned n = spool_pool_num_threads(p);
    assert_int_equal(spool_pool_destroy(p), 0);
    return n;
}

static void test_config_sizes(void **state)
{
    (void)state;
    int err;
    /* SPOOL_CONFIG_INIT, then fields. */
    spool_config_t init = SPOOL_CONFIG_INIT;
    assert_int_equal(init.size, sizeof(spool_config_t));
    init.num_threads = 3;
    assert_int_equal(created_threads(&init, &err), 3);
    assert_int_equal(err, 0);
    /* size 0 (designated initialisers): the first layout. */
    spool_config_t zero_size = {.num_threads = 2};
    assert_int_equal(created_threads(&zero_size, &err), 2);
    /* A newer caller: a larger config whose unknown fields are zero works,
     * one that sets them is refused rather than silently ignored. */
    struct {
        spool_config_t known;
        unsigned long long later_field;
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.known.size = sizeof newer;
    newer.known.num_threads = 2;
    assert_int_equal(created_threads(&newer.known, &err), 2);
    assert_int_equal(err, 0);
    newer.later_field = 1;
    created_threads(&newer.known, &err);
    assert_int_equal(err, EINVAL);
    /* Sizes that cannot be a config's. */
    spool_config_t bad = SPOOL_CONFIG_INIT;
    bad.size = 1;
    created_threads(&bad, &err);
    assert_int_equal(err, EINVAL);
    bad.size = (size_t)1 << 20;
    created_threads(&bad, &err);
    assert_int_equal(err, EINVAL);
}

/* A system error that spool passes on (spool_pool_trace_write's ENOENT for
 * a file in a directory that does not exist) is described as the system
 * describes it; a code that is no error at all is "unknown error". */
static void test_strerror_system_errors(void **state)
{
    (void)state;
    int started = spool_pool_trace_start(pool, 16);
    int err = spool_pool_trace_write(pool, "/nonexistent-spool-dir/x.json");
    if (started == ENOTSUP) { /* built with -DSPOOL_TRACE=OFF */
        assert_int_equal(err, ENOTSUP);
    } else {
        /* EALREADY: SPOOL_TRACE set for the whole suite started one. */
        assert_true(started == 0 || started == EALREADY);
        if (started == 0)
            assert_int_equal(spool_pool_trace_stop(pool), 0);
        assert_int_equal(err, ENOENT);
        assert_string_equal(spool_strerror(err), strerror(ENOENT));
    }
    assert_string_equal(spool_strerror(ENOENT), strerror(ENOENT));
    assert_string_equal(spool_strerror(EACCES), strerror(EACCES));
    assert_string_equal(spool_strerror(-5), "unknown error");
    assert_string_equal(spool_strerror(100000), "unknown error");
    assert_string_equal(spool_strerror(EINVAL), "invalid argument");
}

int main(void)
{
    spool_config_t c = {.num_threads = 2};
    if (spool_pool_create(&c, &pool) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_sizes),
        cmocka_unit_test(test_abort_table),
        cmocka_unit_test(test_errno_table),
        cmocka_unit_test(test_destroy_from_own_worker),
        cmocka_unit_test(test_install_into_itself_runs_inline),
        cmocka_unit_test(test_strerror_system_errors),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    spool_pool_destroy(pool);
    return failed;
}
