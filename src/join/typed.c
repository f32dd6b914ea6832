/* Typed tasks (include/spool_typed.h): each thread's frame stack, the
 * checks that name a task, and SPOOL_RUN / SPOOL_RUN_IN.  The spawn and
 * the sync themselves are the header's, over spool_fork_inline. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#include "registry/global.h"
#include "registry/pool.h"
#include "spool_typed.h"
#include "registry/worker.h"

/* Address space a thread's frame stack reserves; pages are touched only as
 * frames reach them. */
#define FRAME_STACK_BYTES ((size_t)64 << 20)

__thread char *spool__typed_top_v3;
__thread char *spool__typed_end_v3;

static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;
static bool stack_key_made;

/* A thread's exit: its frame stack goes (every spawn is synced by now). */
static void stack_free(void *base)
{
    munmap(base, FRAME_STACK_BYTES);
}

static void stack_key_make(void)
{
    stack_key_made = pthread_key_create(&stack_key, stack_free) == 0;
}

char *spool__typed_enter_v3(void)
{
    if (SPOOL__LIKELY(spool__typed_top_v3 != NULL))
        return spool__typed_top_v3;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    void *base = mmap(NULL, FRAME_STACK_BYTES, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (base == MAP_FAILED)
        spool__abort("typed tasks: no memory for this thread's frame stack");
    pthread_once(&stack_key_once, stack_key_make);
    /* Without a key (none left) the stack lives as long as the process. */
    if (stack_key_made)
        (void)pthread_setspecific(stack_key, base);
    spool__typed_top_v3 = base;
    spool__typed_end_v3 = (char *)base + FRAME_STACK_BYTES;
    return spool__typed_top_v3;
}

static _Noreturn void abort_naming(const char *what, const char *name)
{
    char msg[256];
    snprintf(msg, sizeof msg, "typed task %s: %s", name, what);
    spool__abort(msg);
}

void spool__typed_overflow_v3(const char *name)
{
    abort_naming("more spawns outstanding on one thread than its frame stack holds", name);
}

void spool__typed_unsynced_v3(const char *name)
{
    abort_naming("returned with a spawn not synced", name);
}

void spool__typed_mismatch_v3(const char *name)
{
    abort_naming("synced, but the newest spawn not synced is of another task (or there is none)",
                 name);
}

void spool__typed_run_v3(spool_pool_t *pool, int in, spool_fn fn, void *frame)
{
    if (in) {
        if (SPOOL__UNLIKELY(pool == NULL))
            spool__abort("SPOOL_RUN_IN: NULL pool");
        /* A pool that cannot take it (being destroyed, no memory, a forked
         * child): the caller runs it, so that no call is lost. */
        if (spool_pool_install(pool, fn, frame) != 0)
            fn(frame);
        return;
    }
    if (spool__current_worker() != NULL) {
        fn(frame);
        return;
    }
    pool = spool__global_pool();
    if (pool == NULL || spool__pool_run_root(pool, fn, frame) != 0)
        fn(frame);
}
