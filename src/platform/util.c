/* Odds and ends: version, error strings, abort, test hooks, the counters
 * of the thread (stats.h). */
#define _GNU_SOURCE /* strerrordesc_np */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"

#include "platform/atomics.h"
#include "platform/stats.h"
#include "platform/test_hooks.h"

#ifdef SPOOL_STATS
_Thread_local spool__stats_t *spool__tls_stats;
#endif

#ifdef SPOOL__TSAN
atomic_uint spool__tsan_fence_word;
#endif

unsigned spool_version(void)
{
    return SPOOL_VERSION_MAJOR * 10000u + SPOOL_VERSION_MINOR * 100u + SPOOL_VERSION_PATCH;
}

const char *spool_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case EINVAL:
        return "invalid argument";
    case EAGAIN:
        return "cannot create a thread (resource limit)";
    case ENOMEM:
        return "out of memory";
    case EDEADLK:
        return "would deadlock: called on one of the pool's own workers, or waiting for a task "
               "that was never submitted";
    case EALREADY:
        return "already done: the global pool is started, the trace is in that state, or the "
               "task has a queue";
    case ECANCELED:
        return "cancelled: the pool is being destroyed, or the task or scope was cancelled";
    case EBUSY:
        return "busy: the task has started, or tasks will still post to the queue";
    case EMFILE:
    case ENFILE:
        return "no file descriptor could be had (for a completion queue)";
    case ENOTSUP:
        return "not supported by this build of spool";
    case ENOTRECOVERABLE:
        return "the pool was created before fork(): it has no threads in this process";
    default:
        break;
    }
    /* The system's errors that spool passes on (a trace file that cannot
     * be written): the system's own description, a static string. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *sys = err > 0 ? strerrordesc_np(err) : NULL;
    if (sys != NULL)
        return sys;
#endif
    return "unknown error";
}

_Noreturn void spool__abort(const char *msg)
{
    fprintf(stderr, "spool: %s\n", msg);
    fflush(stderr);
    abort();
}

int spool__test_countdown_arm(spool__test_countdown_t *c, int nth)
{
    /* Relaxed: armed by a test on its own thread before the calls it
     * watches; the hits are a plain tally. */
    atomic_store_explicit(&c->left, nth, memory_order_relaxed);
    return atomic_exchange_explicit(&c->hits, 0, memory_order_relaxed);
}

bool spool__test_countdown_hit(spool__test_countdown_t *c)
{
    atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
    if (atomic_load_explicit(&c->left, memory_order_relaxed) <= 0)
        return false;
    return atomic_fetch_sub_explicit(&c->left, 1, memory_order_relaxed) == 1;
}

static spool__test_countdown_t fail_create;
static atomic_int fail_create_err;

void spool__test_fail_thread_create(int nth, int err)
{
    /* Relaxed: armed by a test before it creates the pool, on one thread. */
    atomic_store_explicit(&fail_create_err, err, memory_order_relaxed);
    (void)spool__test_countdown_arm(&fail_create, nth);
}

int spool__test_thread_create_error(void)
{
    if (!spool__test_countdown_hit(&fail_create))
        return 0;
    return atomic_load_explicit(&fail_create_err, memory_order_relaxed);
}

static atomic_int fail_deque_grow;

void spool__test_fail_deque_grow(int armed)
{
    /* Relaxed: armed and disarmed by a test while the queues it fills are
     * pushed only by the test's own thread. */
    atomic_store_explicit(&fail_deque_grow, armed, memory_order_relaxed);
}

int spool__test_deque_grow_fails(void)
{
    return atomic_load_explicit(&fail_deque_grow, memory_order_relaxed);
}

static _Atomic uint64_t loop_short_ticks; /* 0: loop.c's own bound */

void spool__test_set_loop_short_ticks(uint64_t ticks)
{
    /* Relaxed: set by a test before the loops it watches start. */
    atomic_store_explicit(&loop_short_ticks, ticks, memory_order_relaxed);
}

uint64_t spool__test_loop_short_ticks(uint64_t fallback)
{
    uint64_t t = atomic_load_explicit(&loop_short_ticks, memory_order_relaxed);
    return t != 0 ? t : fallback;
}

static spool__test_countdown_t fail_alloc;

int spool__test_fail_alloc(int nth)
{
    return spool__test_countdown_arm(&fail_alloc, nth);
}

int spool__test_alloc_fails(void)
{
    return spool__test_countdown_hit(&fail_alloc);
}

static atomic_int fail_spawn_alloc;

void spool__test_fail_spawn_alloc(int armed)
{
    /* Relaxed: armed by a test before the spawns it watches are made and
     * disarmed after they have run (a scope's end orders them). */
    atomic_store_explicit(&fail_spawn_alloc, armed, memory_order_relaxed);
}

int spool__test_spawn_alloc_fails(void)
{
    return atomic_load_explicit(&fail_spawn_alloc, memory_order_relaxed);
}

static atomic_int demand_always;
static atomic_ulong demand_waits;

void spool__test_set_demand_always(int armed)
{
    /* Relaxed: set by a test before the spawns it watches. */
    atomic_store_explicit(&demand_always, armed, memory_order_relaxed);
}

int spool__test_demand_always(void)
{
    return atomic_load_explicit(&demand_always, memory_order_relaxed);
}

void spool__test_demand_waited(void)
{
    /* Relaxed: a tally, read by the test once the pool is idle. */
    atomic_fetch_add_explicit(&demand_waits, 1, memory_order_relaxed);
}

unsigned long spool__test_demand_waits(void)
{
    return atomic_exchange_explicit(&demand_waits, 0, memory_order_relaxed);
}
