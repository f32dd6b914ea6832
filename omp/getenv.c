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
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "env.h"

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

/* The loaded object that holds address pc: its name and load base, found
 * from the program headers (dladdr would also search its symbols). */
typedef struct object {
    uintptr_t pc, base;
    const char *name;
} object_t;

static int holds_pc(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    object_t *o = arg;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && o->pc >= lo && o->pc - lo < ph->p_memsz) {
            o->base = info->dlpi_addr;
            o->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

static bool find_object(const void *pc, object_t *o)
{
    *o = (object_t){.pc = (uintptr_t)pc};
    return dl_iterate_phdr(holds_pc, o) != 0 && o->name != NULL;
}

/* Whether code at pc belongs to a libgomp that is not this library (which
 * may itself be loaded by the libgomp.so.1 name). */
static bool in_other_libgomp(const void *pc)
{
    object_t caller, self;
    if (!find_object(pc, &caller) ||
        !find_object((const void *)(uintptr_t)in_other_libgomp, &self) ||
        caller.base == self.base)
        return false;
    const char *base = strrchr(caller.name, '/');
    base = base != NULL ? base + 1 : caller.name;
    return strncmp(base, "libgomp.so", 10) == 0;
}

char *spool__omp_getenv(const char *name)
{
    return lookup(name);
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
