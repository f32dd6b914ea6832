/* Helpers shared by the tests. */
#ifndef SPOOL_TEST_UTIL_H
#define SPOOL_TEST_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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
