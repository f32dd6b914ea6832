/*
 * The environment the global pool starts from: SPOOL_NUM_THREADS and
 * SPOOL_PLACES with bad values.  Each case runs in a child process (the
 * global pool starts once a process), which reports
 * spool_current_num_threads() and what it printed on stderr; this process
 * starts no pool.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "spool.h"

/* Runs a child with name=value set (value NULL: unset): its
 * spool_current_num_threads() into *threads, its stderr into err. */
static void run_child(const char *name, const char *value, unsigned *threads, char *err,
                      size_t size)
{
    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(err_pipe[0]);
        if (value != NULL)
            setenv(name, value, 1);
        else
            unsetenv(name);
        unsigned n = spool_current_num_threads();
        dprintf(out_pipe[1], "%u\n", n);
        _exit(0);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    char buf[64] = {0};
    ssize_t got = read(out_pipe[0], buf, sizeof buf - 1);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < size && (r = read(err_pipe[0], err + len, size - 1 - len)) > 0)
        len += (size_t)r;
    err[len] = '\0';
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(got > 0);
    *threads = (unsigned)strtoul(buf, NULL, 10);
}

/* The global pool's size with nothing set: its threads on every CPU, and
 * the caller slot. */
static unsigned default_threads(void)
{
    char err[1024];
    unsigned n;
    run_child("SPOOL_NUM_THREADS", NULL, &n, err, sizeof err);
    assert_string_equal(err, "");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    assert_int_equal(n, (unsigned)(cpus > 0 ? cpus : 1) + 1);
    return n;
}

static void test_num_threads_not_a_number(void **state)
{
    (void)state;
    unsigned def = default_threads();
    const char *bad[] = {"abc", "-3", "0", "4x", "2.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[1024], want[128];
        unsigned n;
        run_child("SPOOL_NUM_THREADS", bad[i], &n, err, sizeof err);
        snprintf(want, sizeof want, "spool: SPOOL_NUM_THREADS=%s is not a positive whole number",
                 bad[i]);
        if (strstr(err, want) == NULL)
            fail_msg("SPOOL_NUM_THREADS=%s: stderr was \"%s\"", bad[i], err);
        /* One line, and the pool runs on every CPU instead. */
        assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
        assert_int_equal(n, def);
    }
}

static void test_num_threads_absurd(void **state)
{
    (void)state;
    unsigned def = default_threads();
    long cpus = def - 1;
    const char *absurd[] = {"100000", "65535", "8000"};
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        if (strtol(absurd[i], NULL, 10) <= cpus * 64)
            continue; /* a machine that large takes it */
        char err[1024];
        unsigned n;
        run_child("SPOOL_NUM_THREADS", absurd[i], &n, err, sizeof err);
        if (strstr(err, "is more than 64 threads a CPU") == NULL ||
            strstr(err, absurd[i]) == NULL)
            fail_msg("SPOOL_NUM_THREADS=%s: stderr was \"%s\"", absurd[i], err);
        assert_int_equal(n, def);
    }
}

static void test_num_threads_good(void **state)
{
    (void)state;
    char err[1024];
    unsigned n;
    run_child("SPOOL_NUM_THREADS", "3", &n, err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(n, 4); /* three workers and the caller slot */
}

static void test_places_bad(void **state)
{
    (void)state;
    unsigned def = default_threads();
    const char *bad[] = {"junk", "0-4095", "3-1", "cores,"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[1024], want[128];
        unsigned n;
        run_child("SPOOL_PLACES", bad[i], &n, err, sizeof err);
        snprintf(want, sizeof want, "spool: SPOOL_PLACES=%s is not", bad[i]);
        if (strstr(err, want) == NULL || strstr(err, "not pinned") == NULL)
            fail_msg("SPOOL_PLACES=%s: stderr was \"%s\"", bad[i], err);
        /* The pool started all the same, unpinned. */
        assert_int_equal(n, def);
    }
    /* A user's own pool still gets EINVAL, as documented. */
    setenv("SPOOL_PLACES", "junk", 1);
    spool_pool_t *pool = NULL;
    assert_int_equal(spool_pool_create(NULL, &pool), EINVAL);
    unsetenv("SPOOL_PLACES");
}

static void test_places_good(void **state)
{
    (void)state;
    char err[1024];
    unsigned n;
    run_child("SPOOL_PLACES", "cores", &n, err, sizeof err);
    assert_string_equal(err, "");
    assert_true(n >= 2);
}

int main(void)
{
    unsetenv("SPOOL_NUM_THREADS");
    unsetenv("SPOOL_PLACES");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_threads_not_a_number),
        cmocka_unit_test(test_num_threads_absurd),
        cmocka_unit_test(test_num_threads_good),
        cmocka_unit_test(test_places_bad),
        cmocka_unit_test(test_places_good),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
