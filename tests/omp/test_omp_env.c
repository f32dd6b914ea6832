/* libspool-omp, the environment: each case runs this program again with
 * the variables set and checks what it reports and the one line a bad
 * value prints (and that the program runs on). */
#include <limits.h>

#include "omp_test.h"

/* The child: what the environment made of the ICVs and of a region. */
static int report(void)
{
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    atomic_int team = 0, inner = 0;
    atomic_long stack = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0)
            atomic_store(&team, omp_get_num_threads());
        if (omp_get_thread_num() == 1) {
            pthread_attr_t attr;
            size_t size = 0;
            if (pthread_getattr_np(pthread_self(), &attr) == 0) {
                pthread_attr_getstacksize(&attr, &size);
                pthread_attr_destroy(&attr);
            }
            atomic_store(&stack, (long)size);
        }
#pragma omp parallel
        if (omp_get_thread_num() == 0 && omp_get_ancestor_thread_num(1) == 0)
            atomic_store(&inner, omp_get_num_threads());
    }
    atomic_long team_alloc = 0;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        atomic_store(&team_alloc, (long)omp_get_default_allocator());
    printf("max=%d dyn=%d levels=%d limit=%d sched=%d,%d team=%d inner=%d stack=%ld "
           "alloc=%ld team_alloc=%ld teams=%d teams_limit=%d\n",
           omp_get_max_threads(), omp_get_dynamic(), omp_get_max_active_levels(),
           omp_get_thread_limit(), (int)kind, chunk, atomic_load(&team), atomic_load(&inner),
           atomic_load(&stack), (long)omp_get_default_allocator(), atomic_load(&team_alloc),
           omp_get_max_teams(), omp_get_teams_thread_limit());
    return 0;
}

static const omp_test_mode_t modes[] = {{"report", report}};

/* Runs the child with env; its output in out.  Fails unless it exits 0. */
static void run(const char *const *env, char *out, size_t size)
{
    int rc = omp_test_child(env, "report", out, size);
    if (rc != 0)
        fprintf(stderr, "child exited %d:\n%s\n", rc, out);
    assert_int_equal(rc, 0);
}

static int field(const char *out, const char *name)
{
    const char *p = strstr(out, name);
    return p != NULL ? atoi(p + strlen(name)) : INT_MIN;
}

static void test_num_threads(void **state)
{
    (void)state;
    static char out[4096];
    int cpus = omp_get_num_procs();
    const char *bad[] = {"abc", "0", "-3", "4x", "2,,3", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char var[64];
        snprintf(var, sizeof var, "OMP_NUM_THREADS=%s", bad[i]);
        const char *env[] = {var, NULL};
        run(env, out, sizeof out);
        char want[128];
        snprintf(want, sizeof want,
                 "libspool-omp: OMP_NUM_THREADS='%s' is not a list of positive integers; "
                 "using %d (the CPUs)",
                 bad[i], cpus);
        if (strstr(out, want) == NULL)
            fprintf(stderr, "wanted \"%s\" in:\n%s", want, out);
        assert_non_null(strstr(out, want));
        assert_int_equal(field(out, "max="), cpus);
        assert_int_equal(field(out, "team="), cpus);
    }
    const char *huge[] = {"OMP_NUM_THREADS=100000", "OMP_THREAD_LIMIT=8", NULL};
    run(huge, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_NUM_THREADS='100000': 100000 threads is "
                                "above the most a team can have here; using"));
    assert_int_equal(field(out, "team="), 8);
    const char *list[] = {"OMP_NUM_THREADS=3,2", NULL};
    run(list, out, sizeof out);
    assert_int_equal(field(out, "max="), 3);
    assert_int_equal(field(out, "levels="), 255);
    assert_int_equal(field(out, "team="), 3);
    assert_int_equal(field(out, "inner="), 2); /* a pool of 3 x 2 threads */
    const char *spool_var[] = {"OMP_NUM_THREADS", "SPOOL_NUM_THREADS=3", NULL};
    run(spool_var, out, sizeof out);
    assert_int_equal(field(out, "max="), 3);
    assert_int_equal(field(out, "team="), 3);
    assert_null(strstr(out, "libspool-omp:"));
}

static void test_schedule(void **state)
{
    (void)state;
    static char out[4096];
    static const struct {
        const char *value;
        int kind, chunk;
    } cases[] = {
        {"static,5", omp_sched_static | omp_sched_monotonic, 5},
        {"static", omp_sched_static | omp_sched_monotonic, 0},
        {"guided", omp_sched_guided, 1},
        {" dynamic , 3 ", omp_sched_dynamic, 3},
        {"monotonic:dynamic,3", omp_sched_dynamic | omp_sched_monotonic, 3},
        {"nonmonotonic:static", omp_sched_static, 0},
        {"AUTO", omp_sched_auto, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char var[64], want[32];
        snprintf(var, sizeof var, "OMP_SCHEDULE=%s", cases[i].value);
        const char *env[] = {var, NULL};
        run(env, out, sizeof out);
        snprintf(want, sizeof want, "sched=%d,%d", cases[i].kind, cases[i].chunk);
        if (strstr(out, want) == NULL)
            fprintf(stderr, "%s: wanted %s in %s", var, want, out);
        assert_non_null(strstr(out, want));
        assert_null(strstr(out, "libspool-omp:"));
    }
    const char *junk[] = {"OMP_SCHEDULE=fastest", NULL};
    run(junk, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_SCHEDULE='fastest' is not"));
    char want[32];
    snprintf(want, sizeof want, "sched=%d,1", omp_sched_dynamic);
    assert_non_null(strstr(out, want));
}

static void test_dynamic_levels_limit(void **state)
{
    (void)state;
    static char out[4096];
    const char *dyn[] = {"OMP_DYNAMIC=true", NULL};
    run(dyn, out, sizeof out);
    assert_int_equal(field(out, "dyn="), 1);
    const char *maybe[] = {"OMP_DYNAMIC=maybe", NULL};
    run(maybe, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_DYNAMIC='maybe' is neither true nor false; "
                                "using false"));
    assert_int_equal(field(out, "dyn="), 0);
    const char *levels[] = {"OMP_MAX_ACTIVE_LEVELS=3", NULL};
    run(levels, out, sizeof out);
    assert_int_equal(field(out, "levels="), 3);
    const char *nested[] = {"OMP_NESTED=true", NULL};
    run(nested, out, sizeof out);
    assert_int_equal(field(out, "levels="), 255);
    const char *limit[] = {"OMP_THREAD_LIMIT=2", NULL};
    run(limit, out, sizeof out);
    assert_int_equal(field(out, "limit="), 2);
    assert_int_equal(field(out, "team="), 2);
    const char *bad_limit[] = {"OMP_THREAD_LIMIT=none", NULL};
    run(bad_limit, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_THREAD_LIMIT='none' is not a positive"));
}

static void test_wait_policy_stack(void **state)
{
    (void)state;
    static char out[4096];
    const char *passive[] = {"OMP_WAIT_POLICY=passive", NULL};
    run(passive, out, sizeof out);
    assert_null(strstr(out, "libspool-omp:"));
    const char *active[] = {"OMP_WAIT_POLICY=ACTIVE", NULL};
    run(active, out, sizeof out);
    assert_null(strstr(out, "libspool-omp:"));
    const char *junk[] = {"OMP_WAIT_POLICY=lazy", NULL};
    run(junk, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_WAIT_POLICY='lazy'"));
    const char *stack[] = {"OMP_STACKSIZE=3M", NULL};
    run(stack, out, sizeof out);
    assert_true(field(out, "stack=") >= 3 << 20);
    const char *bad_stack[] = {"OMP_STACKSIZE=big", NULL};
    run(bad_stack, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_STACKSIZE='big' is not a size"));
}

static void test_display_env_at_start(void **state)
{
    (void)state;
    static char out[8192];
    const char *env[] = {"OMP_DISPLAY_ENV=true", "OMP_NUM_THREADS=3", NULL};
    run(env, out, sizeof out);
    assert_non_null(strstr(out, "OPENMP DISPLAY ENVIRONMENT BEGIN"));
    assert_non_null(strstr(out, "OMP_NUM_THREADS = '3'"));
    const char *bad[] = {"OMP_DISPLAY_ENV=loud", NULL};
    run(bad, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_DISPLAY_ENV='loud'"));
}

static void test_allocator_and_teams(void **state)
{
    (void)state;
    static char out[4096];
    const char *none[] = {NULL};
    run(none, out, sizeof out);
    assert_int_equal(field(out, "alloc="), (int)omp_default_mem_alloc);
    assert_int_equal(field(out, "teams="), 0);
    assert_int_equal(field(out, "teams_limit="), 0);
    const char *env[] = {"OMP_ALLOCATOR=omp_cgroup_mem_alloc", "OMP_NUM_TEAMS=5",
                         "OMP_TEAMS_THREAD_LIMIT=7", NULL};
    run(env, out, sizeof out);
    assert_int_equal(field(out, "alloc="), (int)omp_cgroup_mem_alloc);
    assert_int_equal(field(out, "team_alloc="), (int)omp_cgroup_mem_alloc);
    assert_int_equal(field(out, "teams="), 5);
    assert_int_equal(field(out, "teams_limit="), 7);
    const char *bad[] = {"OMP_ALLOCATOR=plenty", "OMP_NUM_TEAMS=-1", NULL};
    run(bad, out, sizeof out);
    assert_non_null(strstr(out, "libspool-omp: OMP_ALLOCATOR='plenty' is not a predefined"));
    assert_non_null(strstr(out, "libspool-omp: OMP_NUM_TEAMS='-1' is not a positive"));
    assert_int_equal(field(out, "alloc="), (int)omp_default_mem_alloc);
}

static void test_display_affinity(void **state)
{
    (void)state;
    static char out[8192];
    /* A line per thread as it starts in a team, in the format asked. */
    const char *env[] = {"OMP_DISPLAY_AFFINITY=true", "OMP_AFFINITY_FORMAT=[%L:%n/%N]",
                         "OMP_NUM_THREADS=2", NULL};
    run(env, out, sizeof out);
    assert_non_null(strstr(out, "[1:0/2]"));
    assert_non_null(strstr(out, "[1:1/2]"));
}

int main(int argc, char **argv)
{
    omp_test_child_main(argc, argv, modes, sizeof modes / sizeof modes[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_threads),
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_dynamic_levels_limit),
        cmocka_unit_test(test_wait_policy_stack),
        cmocka_unit_test(test_display_env_at_start),
        cmocka_unit_test(test_allocator_and_teams),
        cmocka_unit_test(test_display_affinity),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
