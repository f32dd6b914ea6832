/* One OpenMP runtime per process (omp.md, "The environment").  Under
 * LD_PRELOAD the program's own libgomp.so.1 still loads, and its
 * constructor, which runs before ours, reads the OMP_ variables: it would
 * report a bad value a second time, print a second OMP_DISPLAY_ENV block
 * that disagrees with ours, and so on, though it runs nothing.  So this
 * library defines getenv and secure_getenv, which come before libc's for
 * every caller once it is preloaded: they answer as libc's do, except that
 * a libgomp other than this library finds no OMP_, GOMP_, ACC_ or KMP_
 * variable.  Nothing here may use spool, thread-local data or this
 * library's constructors: libgomp's constructor calls it before they run. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "omp_impl.h"

extern char **environ;

/* libc's answer: the value of the first NAME=value in the environment. */
static char *lookup(const char *name)
{
    size_t len = strlen(name);
    if (environ == NULL || len == 0 || strchr(name, '=') != NULL)
        return NULL;
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static bool runtime_name(const char *name)
{
    return strncmp(name, "OMP_", 4) == 0 || strncmp(name, "GOMP_", 5) == 0 ||
           strncmp(name, "ACC_", 4) == 0 || strncmp(name, "KMP_", 4) == 0;
}

/* Whether code at pc belongs to a libgomp that is not this library (which
 * may itself be loaded by the libgomp.so.1 name). */
static bool in_other_libgomp(const void *pc)
{
    Dl_info caller, self;
    if (dladdr(pc, &caller) == 0 || caller.dli_fname == NULL ||
        dladdr((void *)(uintptr_t)in_other_libgomp, &self) == 0 ||
        caller.dli_fbase == self.dli_fbase)
        return false;
    const char *base = strrchr(caller.dli_fname, '/');
    base = base != NULL ? base + 1 : caller.dli_fname;
    return strncmp(base, "libgomp.so", 10) == 0;
}

SPOOL_OMP_API char *getenv(const char *name)
{
    if (runtime_name(name) && in_other_libgomp(__builtin_return_address(0)))
        return NULL;
    return lookup(name);
}

SPOOL_OMP_API char *secure_getenv(const char *name)
{
    if (getauxval(AT_SECURE) != 0)
        return NULL;
    if (runtime_name(name) && in_other_libgomp(__builtin_return_address(0)))
        return NULL;
    return lookup(name);
}
