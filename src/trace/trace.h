/*
 * Internal: the timeline (spool_pool_trace_*).  Each worker records into a
 * ring of its own; the protocol that lets any thread read a ring while its
 * worker writes is in src/trace/trace.md.
 */
#ifndef SPOOL_TRACE_H
#define SPOOL_TRACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "platform/atomics.h"
#include "platform/clock.h"
#include "job/job.h"

/* Tracing compiled in (CMake SPOOL_TRACE, on by default). */
#ifdef SPOOL_TRACING
#define SPOOL__TRACE_ENABLED 1
#else
#define SPOOL__TRACE_ENABLED 0
#endif

/* What a record describes (info bits 0-3). */
enum {
    SPOOL__TRACE_JOB = 1,    /* a job run from the wait loop */
    SPOOL__TRACE_WAIT = 2,   /* a joiner waiting for its stolen half, running others */
    SPOOL__TRACE_SEARCH = 3, /* looking for work, idle */
    SPOOL__TRACE_SLEEP = 4   /* blocked on the condvar until woken */
};
/* Where a job came from (info bits 4-7); the victim is in bits 8-23. */
enum {
    SPOOL__FROM_OWN = 0,
    SPOOL__FROM_STOLEN = 1,
    SPOOL__FROM_INJECTOR = 2,
    SPOOL__FROM_BROADCAST = 3,
    /* A scope spawn run by its spawner at once, having no memory. */
    SPOOL__FROM_AT_SPAWN = 4,
    /* A lend (scheduler/lend.h): run for a layer above that claimed the
     * worker. */
    SPOOL__FROM_LENT = 5,
    /* Or-ed in: the job was a cancelled scope's, dropped unrun. */
    SPOOL__FROM_DROPPED = 8
};
#define SPOOL__TRACE_INFO(kind, from, victim, depth)                                           \
    ((uint64_t)(kind) | (uint64_t)(from) << 4 | (uint64_t)(victim) << 8 |                     \
     (uint64_t)(depth) << 32)

/* Fields are atomics, stored and loaded relaxed (plain moves on x86-64 and
 * AArch64), because a reader may copy a record while its worker overwrites
 * it: trace.md says how the reader tells. */
typedef struct spool__trace_record {
    atomic_uint_least64_t start, end; /* clock ticks (spool__trace_now) */
    atomic_uint_least64_t fn;         /* job, wait: the user function's address */
    atomic_uint_least64_t arg;        /* job: its argument */
    atomic_uint_least64_t info;       /* SPOOL__TRACE_INFO */
} spool__trace_record_t;

typedef struct spool__trace_ring {
    /* Read by any thread (trace_write), written by the worker only. */
    SPOOL__ALIGNED atomic_uint_least64_t claimed; /* records begun */
    atomic_uint_least64_t written;                /* records complete */
    /* The worker's own. */
    uint64_t count;  /* = claimed = written between records */
    size_t pos;      /* count % capacity */
    unsigned depth;  /* traced jobs and waits open on this worker */
    spool__trace_record_t *records;
} spool__trace_ring_t;

typedef struct spool__trace {
    struct spool__trace *older; /* stopped traces, freed with the pool */
    size_t capacity;            /* records per ring */
    unsigned num_workers;
    bool stopped; /* under the pool's trace lock */
    uint64_t start_ticks;       /* spool__trace_now() at start */
    uint64_t start_ns;          /* CLOCK_MONOTONIC at start */
    uint64_t stop_ticks;        /* spool__trace_now() at stop */
    /* At stop, each ring's written count: records completed later (a job
     * or search that began before the stop) are left out, so that a
     * stopped trace reads the same every time. */
    uint64_t *stop_written;
    spool__trace_ring_t rings[];
} spool__trace_t;

/* Per pool (struct spool_pool). */
typedef struct spool__trace_state {
    /* The trace being recorded, NULL when none.  Written under lock. */
    _Atomic(spool__trace_t *) current;
    spool__trace_t *last; /* the newest trace, running or stopped */
    pthread_mutex_t lock; /* serialises start, stop and write */
    char *env_path;       /* SPOOL_TRACE's path (substituted), written on destroy */
} spool__trace_state_t;

/* The clock: the TSC where the kernel itself keeps time with it (then it is
 * invariant and synchronised across cores), else CLOCK_MONOTONIC in ns. */
extern bool spool__trace_use_tsc;

static inline uint64_t spool__trace_now(void)
{
#ifdef SPOOL__HAVE_TSC
    if (spool__trace_use_tsc)
        return __rdtsc();
#endif
    return spool__now_ns();
}

static inline spool__trace_t *spool__trace_current(spool__trace_state_t *s)
{
    /* Acquire pairs with the release store in spool_pool_trace_start: the
     * rings are allocated and zeroed. */
    return atomic_load_explicit(&s->current, memory_order_acquire);
}

/* ThreadSanitizer does not model fences (and warns about them); every
 * field the fences order is an atomic, so it has no plain access to check
 * against them anyway. */
#if SPOOL__TSAN
#define spool__trace_fence(order) atomic_signal_fence(order)
#else
#define spool__trace_fence(order) atomic_thread_fence(order)
#endif

/* Appends one record to ring r; called by r's worker only.  No lock, no
 * read-modify-write: a full ring overwrites its oldest record. */
static inline void spool__trace_put(spool__trace_ring_t *r, size_t capacity, uint64_t start,
                                    uint64_t end, uint64_t fn, uint64_t arg, uint64_t info)
{
    uint64_t n = r->count + 1;
    atomic_store_explicit(&r->claimed, n, memory_order_relaxed);
    /* Release fence: pairs with the reader's acquire fence before it reads
     * claimed.  A reader that sees any field stored below also sees this
     * claim, and so discards the record this one overwrites (trace.md). */
    spool__trace_fence(memory_order_release);
    spool__trace_record_t *rec = &r->records[r->pos];
    atomic_store_explicit(&rec->start, start, memory_order_relaxed);
    atomic_store_explicit(&rec->end, end, memory_order_relaxed);
    atomic_store_explicit(&rec->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&rec->arg, arg, memory_order_relaxed);
    atomic_store_explicit(&rec->info, info, memory_order_relaxed);
    r->pos = r->pos + 1 == capacity ? 0 : r->pos + 1;
    r->count = n;
    /* Release pairs with the reader's acquire load of written: the record's
     * fields are visible to a reader that counts it. */
    atomic_store_explicit(&r->written, n, memory_order_release);
}

/* A record as read back. */
typedef struct spool__trace_copy {
    uint64_t start, end, fn, arg, info;
} spool__trace_copy_t;

/* Copies ring r's records that are complete and not being overwritten into
 * out (room for capacity), oldest first, while r's worker may be writing;
 * returns how many, and *recorded how many the worker had completed.  Only
 * the first `limit` records ever written count (a stopped trace's).  Any
 * thread, one at a time per ring. */
static inline size_t spool__trace_ring_copy(const spool__trace_ring_t *r, size_t capacity,
                                            uint64_t limit, spool__trace_copy_t *out,
                                            uint64_t *recorded)
{
    /* Acquire pairs with the release store of written in spool__trace_put:
     * the fields of every counted record are visible. */
    uint64_t written = atomic_load_explicit(&r->written, memory_order_acquire);
    if (written > limit)
        written = limit;
    uint64_t first = written > capacity ? written - capacity : 0;
    size_t n = 0;
    for (uint64_t i = first; i < written; i++) {
        const spool__trace_record_t *rec = &r->records[i % capacity];
        spool__trace_copy_t *c = &out[n++];
        c->start = atomic_load_explicit(&rec->start, memory_order_relaxed);
        c->end = atomic_load_explicit(&rec->end, memory_order_relaxed);
        c->fn = atomic_load_explicit(&rec->fn, memory_order_relaxed);
        c->arg = atomic_load_explicit(&rec->arg, memory_order_relaxed);
        c->info = atomic_load_explicit(&rec->info, memory_order_relaxed);
    }
    /* Acquire fence: pairs with the release fence in spool__trace_put.  If
     * a load above read a field of record j + capacity (which overwrites
     * record j), the claimed value read below counts record j + capacity,
     * and record j is discarded. */
    spool__trace_fence(memory_order_acquire);
    uint64_t claimed = atomic_load_explicit(&r->claimed, memory_order_relaxed);
    uint64_t valid_from = claimed > capacity ? claimed - capacity : 0;
    size_t skip = valid_from > first ? (size_t)(valid_from - first) : 0;
    if (skip > n)
        skip = n;
    for (size_t k = skip; k < n; k++)
        out[k - skip] = out[k];
    *recorded = written;
    return n - skip;
}

/* The description of a call fn(arg) (read.c): what a describer of a layer
 * above says (a loop part's call names the user's body), else fn and arg
 * themselves. */
void spool__trace_describe_call(void (*fn)(void *), void *arg, spool__job_info_t *info);

/* A describer: true if it knows fn (a call of its layer's that runs the
 * user's code) and has set *info. */
typedef bool (*spool__trace_describer_t)(void (*fn)(void *), void *arg, spool__job_info_t *info);
/* Makes describer, a function at file scope of a layer above, one that
 * spool__trace_describe_call asks: a pointer to it in the section
 * spool_describers of the library's image (as job.h's kinds), so that this
 * layer names none. */
#define SPOOL__TRACE_DESCRIBER(describer)                                                          \
    __attribute__((used, section("spool_describers"))) static const spool__trace_describer_t      \
        describer##_entry = describer

#endif
