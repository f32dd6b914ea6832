/* Helpers of the OpenMP tests (tests/omp/): programs built with gcc
 * -fopenmp and linked with libspool-omp in libgomp's place. */
#ifndef SPOOL_OMP_TEST_H
#define SPOOL_OMP_TEST_H

#include <dlfcn.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <setjmp.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "../test_util.h"

/* gcc's parallel entry point, to find which library defines it. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

/* The file of the library that runs this program's OpenMP, links
 * followed: a libgomp.so.1 on LD_LIBRARY_PATH that is libspool-omp (one of
 * the ways in) names libspool-omp. */
static inline const char *omp_test_runtime(void)
{
    static char path[PATH_MAX];
    Dl_info info;
    if (dladdr((void *)(uintptr_t)GOMP_parallel, &info) == 0 || info.dli_fname == NULL)
        return "?";
    if (realpath(info.dli_fname, path) == NULL)
        return info.dli_fname;
    return path;
}

/* Fails the test unless libspool-omp runs this program's OpenMP. */
static inline void omp_test_assert_on_spool(void)
{
    if (strstr(omp_test_runtime(), "spool-omp") == NULL) {
        fprintf(stderr, "OpenMP runs on %s, not libspool-omp\n", omp_test_runtime());
        fail();
    }
}

/* Runs this program again (/proc/self/exe --child MODE) with the
 * environment changed by env ("NAME=value" sets, "NAME" unsets; NULL-ended),
 * its stdout and stderr into out (NUL-ended).  Returns its exit status, or
 * 128 + the signal that ended it, or -1. */
static inline int omp_test_child(const char *const *env, const char *mode, char *out, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        for (const char *const *e = env; *e != NULL; e++) {
            const char *eq = strchr(*e, '=');
            if (eq == NULL) {
                unsetenv(*e);
            } else {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
                setenv(name, eq + 1, 1);
            }
        }
        execl("/proc/self/exe", "omp-test-child", "--child", mode, (char *)NULL);
        _exit(126);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < size && (r = read(fd[0], out + len, size - 1 - len)) > 0)
        len += (size_t)r;
    out[len] = '\0';
    char sink[256];
    while (read(fd[0], sink, sizeof sink) > 0) {
    }
    close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The child's side: if argv asks for a mode, run it (a table of
 * {name, function}) and exit with its result. */
typedef struct omp_test_mode {
    const char *name;
    int (*run)(void);
} omp_test_mode_t;

static inline void omp_test_child_main(int argc, char **argv, const omp_test_mode_t *modes,
                                       size_t count)
{
    if (argc < 3 || strcmp(argv[1], "--child") != 0)
        return;
    for (size_t i = 0; i < count; i++)
        if (strcmp(argv[2], modes[i].name) == 0) {
            int rc = modes[i].run();
            fflush(stdout);
            exit(rc);
        }
    fprintf(stderr, "no child mode %s\n", argv[2]);
    exit(125);
}

#endif
