/* Helpers shared by the tests. */
#ifndef SPOOL_TEST_UTIL_H
#define SPOOL_TEST_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"

/* An iteration count: the environment variable name if it is a positive
 * integer, else fallback.  SPOOL_TEST_SCALE (a positive integer)
 * multiplies every count, for longer soak runs. */
static inline unsigned long test_iters(const char *name, unsigned long fallback)
{
    const char *v = getenv(name);
    unsigned long n = fallback;
    if (v != NULL && strtoul(v, NULL, 10) > 0)
        n = strtoul(v, NULL, 10);
    const char *scale = getenv("SPOOL_TEST_SCALE");
    if (scale != NULL && strtoul(scale, NULL, 10) > 0)
        n *= strtoul(scale, NULL, 10);
    return n;
}

/* Threads in this process, from /proc/self/status; -1 if unreadable. */
static inline int test_os_threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "Threads:", 8) == 0)
            n = atoi(line + 8);
    fclose(f);
    return n;
}

/* The OS thread count, given up to 5 s to fall to `limit`. pthread_join
 * returns when the kernel clears the exiting thread's tid, before that thread
 * leaves /proc's count, so a loaded machine can show a joined thread for a
 * moment (and a count taken before a test may include one still leaving). */
static inline int test_os_threads_at_most(int limit)
{
    int n = test_os_threads();
    for (int i = 0; i < 5000 && n > limit; i++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
        n = test_os_threads();
    }
    return n;
}

/* User + system CPU seconds of the whole process. */
static inline double test_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static inline void test_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Nanoseconds of wall time since *start (CLOCK_MONOTONIC). */
static inline long test_ns_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000000000L + (now.tv_nsec - start->tv_nsec);
}

/* Works (spins on the clock) for ns nanoseconds of wall time: work whose
 * length does not depend on the build (sanitizers, valgrind). */
static inline void test_busy_ns(long ns)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (test_ns_since(&start) < ns)
        ;
}

/* Milliseconds of wall time since *start (CLOCK_MONOTONIC).  Tests that
 * repeat rounds until the scheduler shows something bound the rounds by
 * time, not by count: on a loaded machine a woken worker may not run for
 * many short rounds. */
static inline long test_ms_since(const struct timespec *start)
{
    return test_ns_since(start) / 1000000L;
}

/* Raises *most to value if it is below. */
static inline void test_raise_to(atomic_int *most, int value)
{
    int seen = atomic_load(most);
    while (value > seen && !atomic_compare_exchange_weak(most, &seen, value))
        ;
}

/* A meeting of n calls that must run at the same time (coarse work spread
 * over idle workers): counts this one in, then waits until all n are in or
 * deadline_ms passed.  True if all met. */
static inline bool test_meet(atomic_int *in, int n, int deadline_ms)
{
    atomic_fetch_add(in, 1);
    for (int ms = 0; ms < deadline_ms; ms++) {
        if (atomic_load(in) == n)
            return true;
        test_sleep_ms(1);
    }
    return false;
}

/* Waits until *v is at least n or deadline_ms passed.  True if it is. */
static inline bool test_wait_at_least(atomic_int *v, int n, int deadline_ms)
{
    for (int ms = 0; ms < deadline_ms && atomic_load(v) < n; ms++)
        test_sleep_ms(1);
    return atomic_load(v) >= n;
}

static inline unsigned long fib_expected(unsigned n)
{
    unsigned long a = 0, b = 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* Tests that fork (test_expect_abort, fork tests) start threads in the
 * child of a threaded process, which ThreadSanitizer refuses unless told
 * to go on; its other checks stay on. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_UTIL_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(TEST_UTIL_TSAN)
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "die_after_fork=0";
}
#endif

/* Runs body in a forked child with stderr captured: 0 if it died of SIGABRT
 * having printed a line containing needle, 1 if it did not abort, 2 if the
 * message was wrong, -1 if the child could not be run. */
static inline int test_expect_abort(void (*body)(void), const char *needle)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        close(pipefd[0]);
        body();
        _exit(0); /* not reached if body aborts */
    }
    close(pipefd[1]);
    char buf[256] = {0};
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = read(pipefd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    close(pipefd[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
        return 1;
    return strstr(buf, needle) != NULL ? 0 : 2;
}

/* A pool of threads workers (0: the default); the test aborts if it cannot
 * be created. */
static inline spool_pool_t *test_pool(unsigned threads)
{
    spool_config_t config = {.num_threads = threads};
    spool_pool_t *pool;
    int err = spool_pool_create(&config, &pool);
    if (err != 0) {
        fprintf(stderr, "spool_pool_create(%u threads): error %d\n", threads, err);
        abort();
    }
    return pool;
}

/* Writes pool's trace as JSON to a temporary file and reads it into buf
 * (size bytes, NUL-terminated).  True if all of that worked. */
static inline bool test_trace_json(spool_pool_t *pool, char *buf, size_t size)
{
    char path[] = "/tmp/spool-test-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    close(fd);
    char json[64];
    snprintf(json, sizeof json, "%s.json", path);
    bool ok = spool_pool_trace_write(pool, json) == 0;
    FILE *f = ok ? fopen(json, "r") : NULL;
    if (f != NULL) {
        size_t n = fread(buf, 1, size - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    unlink(json);
    unlink(path);
    return f != NULL;
}

/* A job that does nothing: for tests about when and where jobs run. */
static inline void test_nothing(void *arg)
{
    (void)arg;
}

/* fib through spool_join: every call with n >= 2 forks. */
typedef struct fib_task {
    unsigned n;
    unsigned long result;
} fib_task_t;

static inline void fib_join(void *arg)
{
    fib_task_t *t = (fib_task_t *)arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join(fib_join, &a, fib_join, &b);
    t->result = a.result + b.result;
}

#endif
