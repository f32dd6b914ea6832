/* Typed tasks (include/spool_typed.h): the frame stack of frames too large
 * for a cell, the checks that name a task, and inline ABI 3's typed tasks
 * (job/abi_v3.h), whose every frame is on such a stack.  The cells' side
 * is typed_frames.c. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#include "join/typed.h"
#include "job/abi_v3.h"
#include "pool/global.h"
#include "scheduler/pool.h"
#include "scheduler/worker.h"

/* Address space a thread's frame stack reserves; pages are touched only as
 * frames reach them. */
#define FRAME_STACK_BYTES ((size_t)64 << 20)

__thread char *spool__typed_top_v4;
__thread char *spool__typed_end_v4;
__thread struct spool__cell_v4 *spool__typed_head_v4;
__thread char *spool__typed_top_v3;
__thread char *spool__typed_end_v3;

static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key_v4, stack_key_v3;
static bool stack_keys_made;

/* A thread's exit: its frame stack goes (every spawn is synced by now). */
static void stack_free(void *base)
{
    munmap(base, FRAME_STACK_BYTES);
}

static void stack_keys_make(void)
{
    stack_keys_made = pthread_key_create(&stack_key_v4, stack_free) == 0 &&
                      pthread_key_create(&stack_key_v3, stack_free) == 0;
}

/* The calling thread's frame stack (top and end, the thread's variables
 * of one inline ABI), made on first use. */
static char *stack_enter(char **top, char **end, pthread_key_t *key)
{
    if (SPOOL__LIKELY(*top != NULL))
        return *top;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    void *base = mmap(NULL, FRAME_STACK_BYTES, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (base == MAP_FAILED)
        spool__abort("typed tasks: no memory for this thread's frame stack");
    pthread_once(&stack_key_once, stack_keys_make);
    /* Without a key (none left) the stack lives as long as the process. */
    if (stack_keys_made)
        (void)pthread_setspecific(*key, base);
    *top = base;
    *end = (char *)base + FRAME_STACK_BYTES;
    return *top;
}

char *spool__typed_stack_v4(void)
{
    return stack_enter(&spool__typed_top_v4, &spool__typed_end_v4, &stack_key_v4);
}

char *spool__typed_enter_v3(void)
{
    return stack_enter(&spool__typed_top_v3, &spool__typed_end_v3, &stack_key_v3);
}

_Noreturn void spool__typed_abort(const char *what, const char *name)
{
    char msg[256];
    snprintf(msg, sizeof msg, "typed task %s: %s", name, what);
    spool__abort(msg);
}

#define OVERFLOW "more spawns outstanding on one thread than its frame deque or stack holds"
#define UNSYNCED "returned with a spawn not synced"
#define MISMATCH "synced, but the newest spawn not synced is of another task (or there is none)"

void spool__typed_overflow_v4(const char *name)
{
    spool__typed_abort(OVERFLOW, name);
}

void spool__typed_unsynced_v4(const char *name)
{
    spool__typed_abort(UNSYNCED, name);
}

void spool__typed_mismatch_v4(const char *name)
{
    spool__typed_abort(MISMATCH, name);
}

void spool__typed_overflow_v3(const char *name)
{
    spool__typed_abort(OVERFLOW, name);
}

void spool__typed_unsynced_v3(const char *name)
{
    spool__typed_abort(UNSYNCED, name);
}

void spool__typed_mismatch_v3(const char *name)
{
    spool__typed_abort(MISMATCH, name);
}

void spool__typed_run_in(spool_pool_t *pool, int in, spool_fn fn, void *frame)
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

void spool__typed_run_v3(spool_pool_t *pool, int in, spool_fn fn, void *frame)
{
    spool__typed_run_in(pool, in, fn, frame);
}
