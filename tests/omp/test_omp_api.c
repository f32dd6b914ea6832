/* libspool-omp, the omp_ API: time, processors, the ICVs' getters and
 * setters (and that each implicit task has its own), display env, the
 * host's device, allocators, the teams construct on the host, affinity
 * formats, cancellation (its own child runs with OMP_CANCELLATION). */
#include <limits.h>

#include "omp_test.h"

static void test_time(void **state)
{
    (void)state;
    double t0 = omp_get_wtime();
    test_sleep_ms(20);
    double t1 = omp_get_wtime();
    assert_true(t1 - t0 >= 0.019 && t1 - t0 < 5.0);
    assert_true(omp_get_wtick() > 0 && omp_get_wtick() < 0.01);
}

static void test_procs_and_limits(void **state)
{
    (void)state;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(omp_get_num_procs() >= 1 && omp_get_num_procs() <= cpus);
    assert_int_equal(omp_get_thread_limit(), INT_MAX);
    assert_int_equal(omp_get_supported_active_levels(), 255);
    assert_false(omp_in_final());
    assert_int_equal(omp_get_max_task_priority(), 0);
    assert_false(omp_get_cancellation());
}

static void test_icvs(void **state)
{
    (void)state;
    omp_set_dynamic(0);
    assert_false(omp_get_dynamic());
    omp_set_dynamic(1);
    assert_true(omp_get_dynamic());
    omp_set_max_active_levels(3);
    assert_int_equal(omp_get_max_active_levels(), 3);
    assert_true(omp_get_nested());
    omp_set_nested(0);
    assert_int_equal(omp_get_max_active_levels(), 1);
    assert_false(omp_get_nested());
    omp_set_nested(1);
    assert_true(omp_get_nested());
    omp_set_max_active_levels(1);
    omp_set_schedule(omp_sched_guided, 7);
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    assert_int_equal(k, omp_sched_guided);
    assert_int_equal(c, 7);
    omp_set_schedule(omp_sched_static, -3); /* a chunk below one: the default */
    omp_get_schedule(&k, &c);
    assert_int_equal(k, omp_sched_static);
    assert_int_equal(c, 0);
    omp_set_schedule(omp_sched_dynamic, 1);
    /* Each implicit task has ICVs of its own, copied from its parent's. */
    omp_set_num_threads(3);
    atomic_int bad = 0;
#pragma omp parallel
    {
        if (omp_get_max_threads() != 3)
            atomic_fetch_add(&bad, 1);
        omp_set_num_threads(omp_get_thread_num() + 1);
#pragma omp barrier
        if (omp_get_max_threads() != omp_get_thread_num() + 1)
            atomic_fetch_add(&bad, 1);
    }
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(omp_get_max_threads(), 3);
    omp_set_num_threads(4);
}

static int display_env_child(void)
{
    omp_display_env(0);
    omp_display_env(1);
    return 0;
}

static void test_display_env(void **state)
{
    (void)state;
    static char out[8192];
    const char *env[] = {"OMP_SCHEDULE=guided,4", "OMP_DYNAMIC=false", NULL};
    assert_int_equal(omp_test_child(env, "display-env", out, sizeof out), 0);
    assert_non_null(strstr(out, "OPENMP DISPLAY ENVIRONMENT BEGIN"));
    assert_non_null(strstr(out, "OMP_NUM_THREADS = '4'"));
    assert_non_null(strstr(out, "OMP_SCHEDULE = 'GUIDED,4'"));
    assert_non_null(strstr(out, "OMP_DYNAMIC = 'FALSE'"));
    assert_non_null(strstr(out, "SPOOL_OMP_MAX_THREADS"));
    assert_non_null(strstr(out, "OPENMP DISPLAY ENVIRONMENT END"));
}

static void test_host_device(void **state)
{
    (void)state;
    assert_int_equal(omp_get_num_devices(), 0);
    assert_true(omp_is_initial_device());
    int host = omp_get_initial_device();
    assert_int_equal(omp_get_device_num(), host);
    omp_set_default_device(host);
    assert_int_equal(omp_get_default_device(), host);
    char *p = omp_target_alloc(64, host);
    assert_non_null(p);
    char src[64];
    for (int i = 0; i < 64; i++)
        src[i] = (char)i;
    assert_int_equal(omp_target_memcpy(p, src, 32, 0, 16, host, host), 0);
    assert_int_equal(p[0], 16);
    assert_int_equal(p[31], 47);
    assert_true(omp_target_is_present(p, host));
    int grid[4][5] = {{0}}, from[4][5];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            from[i][j] = i * 10 + j;
    size_t vol[2] = {2, 3}, doff[2] = {1, 1}, soff[2] = {2, 2}, dims[2] = {4, 5};
    assert_int_equal(omp_target_memcpy_rect(grid, from, sizeof(int), 2, vol, doff, soff, dims,
                                            dims, host, host),
                     0);
    assert_int_equal(grid[1][1], 22);
    assert_int_equal(grid[2][3], 34);
    assert_int_equal(grid[0][0], 0);
    omp_target_free(p, host);
    assert_null(omp_target_alloc(64, host + 1)); /* no such device */
    assert_int_not_equal(omp_target_memcpy(src, src, 1, 0, 0, host + 1, host), 0);
}

static void test_allocators(void **state)
{
    (void)state;
    char *p = omp_aligned_alloc(256, 1000, omp_default_mem_alloc);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 256, 0);
    memset(p, 1, 1000);
    int *z = omp_calloc(100, sizeof(int), omp_null_allocator);
    for (int i = 0; i < 100; i++)
        assert_int_equal(z[i], 0);
    z[99] = 7;
    z = omp_realloc(z, 1000 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
    assert_int_equal(z[99], 7);
    omp_free(z, omp_default_mem_alloc);
    omp_free(p, omp_default_mem_alloc);
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 64},
                                 {omp_atk_pool_size, 4096},
                                 {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 3, traits);
    assert_int_not_equal(a, omp_null_allocator);
    void *x = omp_alloc(3000, a);
    assert_non_null(x);
    assert_int_equal((uintptr_t)x % 64, 0);
    assert_null(omp_alloc(3000, a)); /* over the pool: the null fallback */
    omp_free(x, a);
    void *y = omp_alloc(3000, a);
    assert_non_null(y);
    omp_set_default_allocator(a);
    assert_int_equal(omp_get_default_allocator(), a);
    assert_null(omp_alloc(2000, omp_null_allocator));
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_free(y, a);
    omp_destroy_allocator(a);
    omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
    assert_int_equal(omp_init_allocator(omp_default_mem_space, 1, bad), omp_null_allocator);
    /* libgomp 12's answers: no pinned memory, no high-bandwidth space. */
    omp_alloctrait_t pinned[] = {{omp_atk_pinned, omp_atv_true}};
    assert_int_equal(omp_init_allocator(omp_default_mem_space, 1, pinned), omp_null_allocator);
    assert_int_equal(omp_init_allocator(omp_high_bw_mem_space, 0, NULL), omp_null_allocator);
    omp_alloctrait_t defaults[] = {{omp_atk_alignment, omp_atv_default},
                                   {omp_atk_sync_hint, omp_atv_default},
                                   {omp_atk_partition, omp_atv_default}};
    a = omp_init_allocator(omp_default_mem_space, 3, defaults);
    assert_int_not_equal(a, omp_null_allocator);
    omp_destroy_allocator(a);
}

static void test_alloc_corners(void **state)
{
    (void)state;
    /* Nothing to allocate is no block (libgomp's). */
    assert_null(omp_alloc(0, omp_default_mem_alloc));
    assert_null(omp_aligned_alloc(64, 0, omp_null_allocator));
    assert_null(omp_calloc(16, 0, omp_default_mem_alloc));
    assert_null(omp_calloc(0, 16, omp_default_mem_alloc));
    assert_null(omp_realloc(NULL, 0, omp_null_allocator, omp_null_allocator));
    /* A pool pays for whole blocks: two halves of it do not both fit. */
    omp_alloctrait_t half[] = {{omp_atk_pool_size, 2 << 20}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, half);
    void *p = omp_alloc(1 << 20, a), *q = omp_alloc(1 << 20, a);
    assert_non_null(p);
    assert_null(q);
    omp_free(p, a);
    omp_destroy_allocator(a);
    /* A realloc in one pool takes the old block's room. */
    omp_alloctrait_t small[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
    a = omp_init_allocator(omp_default_mem_space, 2, small);
    char *r = omp_alloc(3000, a);
    assert_non_null(r);
    r[0] = 42;
    r = omp_realloc(r, 3100, omp_null_allocator, omp_null_allocator); /* the block's own */
    assert_non_null(r);
    assert_int_equal(r[0], 42);
    omp_free(r, a);
    /* A team's threads start with the encountering thread's default. */
    omp_set_default_allocator(a);
    atomic_int other = 0;
#pragma omp parallel num_threads(4)
    if (omp_get_default_allocator() != a)
        atomic_fetch_add(&other, 1);
    assert_int_equal(atomic_load(&other), 0);
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_destroy_allocator(a);
}

static void test_teams_on_host(void **state)
{
    (void)state;
    atomic_int seen = 0, bad = 0;
#pragma omp teams num_teams(3)
    {
        if (omp_get_num_teams() != 3)
            atomic_fetch_add(&bad, 1);
        atomic_fetch_or(&seen, 1 << omp_get_team_num());
    }
    assert_int_equal(atomic_load(&seen), 7);
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(omp_get_num_teams(), 1);
    assert_int_equal(omp_get_team_num(), 0);
    /* Without num_teams: nteams-var's teams, else libgomp's 3 on the host. */
    assert_int_equal(omp_get_max_teams(), 0);
    atomic_store(&seen, 0);
#pragma omp teams
    atomic_fetch_or(&seen, 1 << omp_get_team_num());
    assert_int_equal(atomic_load(&seen), 7);
    omp_set_num_teams(5);
    assert_int_equal(omp_get_max_teams(), 5);
    atomic_store(&seen, 0);
#pragma omp teams
    atomic_fetch_or(&seen, 1 << omp_get_team_num());
    assert_int_equal(atomic_load(&seen), 0x1f);
    omp_set_num_teams(0);
    omp_set_teams_thread_limit(3);
    assert_int_equal(omp_get_teams_thread_limit(), 3);
    /* A region inside a team: every thread sees the team; if(0) gives a
     * team of one, the thread limit bounds the rest. */
    atomic_int members = 0, serial = 0;
#pragma omp teams num_teams(2)
    {
        int team = omp_get_team_num();
#pragma omp parallel num_threads(8)
        {
            atomic_fetch_add(&members, 1);
            if (omp_get_team_num() != team || omp_get_num_teams() != 2 ||
                omp_get_num_threads() != 3)
                atomic_fetch_add(&bad, 1);
        }
#pragma omp parallel if (0)
        if (omp_get_num_threads() == 1 && omp_get_team_num() == team)
            atomic_fetch_add(&serial, 1);
    }
    omp_set_teams_thread_limit(0);
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(atomic_load(&members), 6);
    assert_int_equal(atomic_load(&serial), 2);
}

static void test_affinity_format(void **state)
{
    (void)state;
    omp_set_affinity_format("T%n/%N L%{nesting_level}");
    char buf[64];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    assert_int_equal(n, strlen("T%n/%N L%{nesting_level}"));
    atomic_int bad = 0;
#pragma omp parallel num_threads(2)
    {
        char mine[64], want[64];
        omp_capture_affinity(mine, sizeof mine, NULL);
        snprintf(want, sizeof want, "T%d/2 L1", omp_get_thread_num());
        if (strcmp(mine, want) != 0)
            atomic_fetch_add(&bad, 1);
    }
    assert_int_equal(atomic_load(&bad), 0);
    /* Widths: 0. pads a number with zeros after its sign, . right-justifies,
     * a width alone left-justifies; long names. */
    char line[128];
    size_t len = omp_capture_affinity(line, sizeof line, "%0.5L|%.3n|%3N|%0.4{ancestor_tnum}|%%");
    assert_string_equal(line, "00000|  0|1  |-001|%");
    assert_int_equal(len, strlen(line));
    /* The length is the whole line's, as snprintf's. */
    assert_int_equal(omp_capture_affinity(line, 4, "%.10{thread_num}"), 10);
    assert_string_equal(line, "   ");
    omp_capture_affinity(line, sizeof line, "%i");
    assert_int_equal(strncmp(line, "0x", 2), 0);
    omp_set_affinity_format("level %L thread %i affinity %A");
}

static int cancel_child(void)
{
    if (!omp_get_cancellation())
        return 10;
    /* cancel parallel: threads waiting at the barrier go to the region's
     * end; cancel for: the other threads stop taking chunks at their next
     * cancellation point. */
    atomic_int after = 0, ran = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
            test_sleep_ms(50);
#pragma omp cancel parallel
        }
#pragma omp barrier
        atomic_fetch_add(&after, 1);
    }
    if (atomic_load(&after) != 0)
        return 11;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic)
        for (int i = 0; i < 100000; i++) {
            atomic_fetch_add(&ran, 1);
            if (i == 10) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
            test_busy_ns(1000);
        }
    }
    if (atomic_load(&ran) >= 100000)
        return 12;
    atomic_int sections = 0;
#pragma omp parallel
#pragma omp sections
    {
#pragma omp section
        {
            atomic_fetch_add(&sections, 1);
#pragma omp cancel sections
        }
#pragma omp section
        atomic_fetch_add(&sections, 1);
    }
    if (atomic_load(&sections) < 1)
        return 13;
    /* A cancelled static loop ends at its barrier: the next one runs in
     * full (a static loop has no entry call that could end it). */
    atomic_int second = 0, skipped = 0;
#pragma omp parallel num_threads(4)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 400; i++) {
#pragma omp cancel for
            atomic_fetch_add(&skipped, 1);
        }
#pragma omp for schedule(static)
        for (int i = 0; i < 400; i++) {
#pragma omp cancel for if (i < 0)
            atomic_fetch_add(&second, 1);
        }
    }
    if (atomic_load(&skipped) != 0 || atomic_load(&second) != 400)
        return 14;
    /* cancel taskgroup in a task of a loop's reduction(task): its own
     * taskgroup stands for the enclosing one, whose later tasks do not
     * run, as do none made in a workshare taskgroup inside it. */
    int sum = 0;
    atomic_int late = 0, inside = 0;
#pragma omp parallel num_threads(2)
#pragma omp taskgroup
    {
#pragma omp task
        {
#pragma omp cancel taskgroup
        }
#pragma omp taskwait
#pragma omp for reduction(task, + : sum)
        for (int i = 0; i < 8; i++) {
            sum++;
#pragma omp task in_reduction(+ : sum)
            atomic_fetch_add(&inside, 1);
        }
#pragma omp task
        atomic_fetch_add(&late, 1);
    }
    if (sum != 8 || atomic_load(&inside) != 0 || atomic_load(&late) != 0)
        return 15;
    return 0;
}

static void test_cancellation(void **state)
{
    (void)state;
    static char out[4096];
    const char *env[] = {"OMP_CANCELLATION=true", NULL};
    int rc = omp_test_child(env, "cancel", out, sizeof out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
}

/* The error directive: libgomp's lines, word for word, and exit status 1
 * for a fatal one. */
static int error_child(void)
{
    const char *msg = "xy";
#pragma omp error at(execution) severity(warning) message("careful")
#pragma omp error at(execution) severity(fatal) message(msg)
    return 0;
}

static void test_error_directive(void **state)
{
    (void)state;
    static char out[4096];
    const char *env[] = {NULL};
    int rc = omp_test_child(env, "error", out, sizeof out);
    assert_int_equal(rc, 1);
    assert_string_equal(out, "\nlibgomp: error directive encountered: careful\n"
                             "\nlibgomp: fatal error: error directive encountered: xy\n");
}

static const omp_test_mode_t modes[] = {
    {"display-env", display_env_child},
    {"cancel", cancel_child},
    {"error", error_child},
};

int main(int argc, char **argv)
{
    omp_test_child_main(argc, argv, modes, sizeof modes / sizeof modes[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_procs_and_limits),
        cmocka_unit_test(test_icvs),
        cmocka_unit_test(test_display_env),
        cmocka_unit_test(test_host_device),
        cmocka_unit_test(test_allocators),
        cmocka_unit_test(test_alloc_corners),
        cmocka_unit_test(test_teams_on_host),
        cmocka_unit_test(test_affinity_format),
        cmocka_unit_test(test_cancellation),
        cmocka_unit_test(test_error_directive),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
