/*
 * Internal: the sleep module.  When idle workers go to sleep and who wakes
 * them; the protocol and its proof are in sleep.md.
 */
#ifndef SPOOL_SLEEP_H
#define SPOOL_SLEEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "platform/atomics.h"
#include "platform/clock.h"
#include "deque/deque.h"
#include "queue/injector.h"
#include "sleep/latch.h"
#include "platform/stats.h"
#include "trace/trace.h"
#include "platform/tuning.h"

/*
 * The packed counters, one 64-bit word:
 *   bits  0..15  sleeping threads (blocked on their condvar)
 *   bits 16..31  inactive threads (idle or sleeping)
 *   bits 32..63  jobs event counter (JEC): even = some thread got sleepy
 *                since the last job was posted, odd = jobs were posted since.
 */
#define SPOOL__THREADS_BITS 16
#define SPOOL__THREADS_MASK ((UINT64_C(1) << SPOOL__THREADS_BITS) - 1)
#define SPOOL__ONE_SLEEPING UINT64_C(1)
#define SPOOL__INACTIVE_SHIFT SPOOL__THREADS_BITS
#define SPOOL__ONE_INACTIVE (UINT64_C(1) << SPOOL__INACTIVE_SHIFT)
#define SPOOL__JEC_SHIFT (2 * SPOOL__THREADS_BITS)
#define SPOOL__ONE_JEC (UINT64_C(1) << SPOOL__JEC_SHIFT)
/* Never a JEC value: a 32-bit counter is compared, this has 64 bits. */
#define SPOOL__JEC_DUMMY UINT64_MAX


static inline unsigned spool__counters_sleeping(uint64_t c)
{
    return (unsigned)(c & SPOOL__THREADS_MASK);
}
static inline unsigned spool__counters_inactive(uint64_t c)
{
    return (unsigned)((c >> SPOOL__INACTIVE_SHIFT) & SPOOL__THREADS_MASK);
}
static inline uint64_t spool__counters_jec(uint64_t c)
{
    return c >> SPOOL__JEC_SHIFT;
}

typedef struct spool__worker_sleep {
    SPOOL__ALIGNED pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_blocked; /* guarded by lock */
    bool isolated;   /* guarded by lock: blocked as an isolated waiter (isolate.md) */
    /* How long past its rounds the worker keeps looking before it gets
     * sleepy, in ticks (sleep.md, "Keeping ready"); only its worker reads
     * and writes it. */
    uint64_t keep;
#ifdef SPOOL_STATS
    spool__stat_t sleeps, wakeups_received; /* written by the worker itself */
#endif
} spool__worker_sleep_t;

typedef struct spool__sleep {
    SPOOL__ALIGNED _Atomic uint64_t counters;
    spool__worker_sleep_t *workers;
    unsigned num_workers;
    /* Isolated waiters about to block or blocked (isolate.md): not in the
     * counters, woken by work of any region and by their latch. */
    SPOOL__ALIGNED atomic_uint isolated_sleepers;
    /* A searcher's rounds (tuning.h): spinning, then yielding, until it
     * gets sleepy.  A pool with more threads than the CPUs it may use does
     * not spin and yields little: its searchers would only take the CPU
     * from the workers that have work (spool__sleep_set_rounds). */
    unsigned spin_rounds, rounds_until_sleepy;
    /* The most a searcher keeps looking past its rounds (ticks; 0 in a
     * pool with more threads than CPUs, for the same reason). */
    uint64_t keep_max;
    /* What keeps this state alive: a setter of a cross latch (latch.h)
     * holds it across its wake-up, since the owner may return and its pool
     * be destroyed as soon as the latch is set.  Installed by the layer
     * that owns the state (spool__sleep_set_keeper). */
    void (*hold)(void *keeper);
    void (*release)(void *keeper);
    void *keeper;
} spool__sleep_t;

/* A worker's progress towards sleep, kept on its stack while it searches. */
typedef struct spool__idle_state {
    unsigned worker_index;
    unsigned rounds;
    bool kept, slept;      /* it kept looking past its rounds; it blocked */
    bool crowded;          /* a yield of its keep returned late */
    uint64_t since;        /* its first fruitless round (ticks), 0 before */
    uint64_t jobs_counter; /* JEC read when it got sleepy */
    spool__trace_ring_t *ring; /* records sleeps when not NULL */
    size_t ring_capacity;
} spool__idle_state_t;

/* For num_workers sleepers (workers and the caller slot), the first
 * num_idle of them counted idle until they start.  0 or an errno value. */
int spool__sleep_init(spool__sleep_t *s, unsigned num_workers, unsigned num_idle);
void spool__sleep_destroy(spool__sleep_t *s);
/* Installs what keeps s alive for a cross latch's setter: hold(keeper) and
 * release(keeper), as a reference count's increment and decrement. */
static inline void spool__sleep_set_keeper(spool__sleep_t *s, void (*hold)(void *keeper),
                                           void (*release)(void *keeper), void *keeper)
{
    s->hold = hold;
    s->release = release;
    s->keeper = keeper;
}
/* The searchers' rounds for a pool of threads threads on cpus CPUs (after
 * spool__tuning_init). */
void spool__sleep_set_rounds(spool__sleep_t *s, unsigned threads, unsigned cpus);

/* The worker starts searching: it becomes inactive.  counted: it is
 * already, as a worker's first search is (spool__sleep_init counts every
 * worker idle until then). */
static inline void spool__sleep_start_looking(spool__sleep_t *s, unsigned worker_index,
                                              spool__idle_state_t *idle, bool counted)
{
    /* Seq-cst: the counters are only ever changed with seq-cst RMWs so that
     * they form one total order with the sleep and injection fences. */
    if (!counted) {
        atomic_fetch_add_explicit(&s->counters, SPOOL__ONE_INACTIVE, memory_order_seq_cst);
        SPOOL__COUNT(rmw_sleep);
    }
    idle->worker_index = worker_index;
    idle->rounds = 0;
    idle->kept = idle->slept = idle->crowded = false;
    idle->since = 0; /* read at the first fruitless round */
    idle->jobs_counter = SPOOL__JEC_DUMMY;
    idle->ring = NULL;
}

/* The keep that follows a search that kept looking past its rounds or
 * slept and ended gap ticks after it began (sleep.md, "Keeping ready"):
 * twice the gap if staying up that long would have caught the work, else
 * nothing; never less than half the last keep, so that one late arrival
 * does not undo a steady stream. */
static inline uint64_t spool__sleep_next_keep(uint64_t keep, uint64_t gap, uint64_t keep_max)
{
    uint64_t want = gap > keep_max ? 0 : gap > keep_max / 2 ? keep_max : 2 * gap;
    return want > keep / 2 ? want : keep / 2;
}

/* A search that kept looking or slept ended: the worker's keep follows
 * how soon the work came (out of line). */
void spool__sleep_learn(spool__sleep_t *s, const spool__idle_state_t *idle);

/* Wakes one sleeping worker, if any is blocked (out of line). */
void spool__sleep_wake_one(spool__sleep_t *s);

/* The worker found work (or its latch): it becomes active again.  left:
 * it found a job and saw others left that a sleeper could take; then it
 * wakes one sleeper, if any (sleep.md, "Wake-ups on work found"). */
static inline void spool__sleep_work_found(spool__sleep_t *s, bool left)
{
    /* Seq-cst: see spool__sleep_start_looking. */
    uint64_t old = atomic_fetch_sub_explicit(&s->counters, SPOOL__ONE_INACTIVE,
                                             memory_order_seq_cst);
    SPOOL__COUNT(rmw_sleep);
    if (left && spool__counters_sleeping(old) != 0)
        spool__sleep_wake_one(s);
}

/* A search round found nothing: yield, get sleepy, or sleep until woken or
 * until latch is set.  has_work(arg) is the final check before sleeping,
 * after the sleeper's count and SleepFence: the work that is posted with a
 * PushFence (the pool's queue, the worker's broadcasts; wait.c). */
void spool__sleep_no_work_found(spool__sleep_t *s, spool__idle_state_t *idle,
                                spool__core_latch_t *latch, bool (*has_work)(void *arg),
                                void *arg);

/* An isolated waiter (isolate.md) starts searching: not counted anywhere. */
static inline void spool__sleep_start_isolated(spool__idle_state_t *idle, unsigned worker_index)
{
    idle->worker_index = worker_index;
    idle->rounds = 0;
    idle->kept = idle->slept = idle->crowded = false;
    idle->since = 0;
    idle->jobs_counter = SPOOL__JEC_DUMMY;
}

/* An isolated waiter's search round found nothing: spin, yield, or (the
 * rounds of spool__sleep_no_work_found past) sleep as an isolated sleeper
 * (spool__sleep_isolated, has_work its final check). */
void spool__sleep_no_work_found_isolated(spool__sleep_t *s, spool__idle_state_t *idle,
                                         spool__core_latch_t *latch,
                                         bool (*has_work)(void *arg), void *arg);

/* An isolated waiter (isolate.md), worker index, about to sleep on latch:
 * counts itself an isolated sleeper, SleepFence, then has_work(arg) (its
 * final check); blocks unless that found work, until woken by its latch's
 * setter or by spool__sleep_wake_isolated.  Not counted in the counters. */
void spool__sleep_isolated(spool__sleep_t *s, unsigned index, spool__core_latch_t *latch,
                           bool (*has_work)(void *arg), void *arg);

/* After work that an isolated waiter could take became public (the
 * caller's fence first: PushFence): wakes every isolated sleeper. */
void spool__sleep_wake_isolated(spool__sleep_t *s);

/* A broadcast was queued on every worker's broadcast queue: wake every
 * sleeping worker (each must run it). */
void spool__sleep_new_broadcast(spool__sleep_t *s);

/* Wakes worker index if it sleeps.  True if it did. */
bool spool__sleep_wake_specific_thread(spool__sleep_t *s, unsigned index);

/* A latch owned by worker index was set and the worker was SLEEPING. */
static inline void spool__sleep_notify_worker_latch_is_set(spool__sleep_t *s, unsigned index)
{
    spool__sleep_wake_specific_thread(s, index);
}

/* True if it woke a sleeper. */
bool spool__sleep_new_jobs_cold(spool__sleep_t *s, uint64_t counters, unsigned num_jobs,
                                bool queue_was_empty);

/* Post-work protocol, steps 2 and 3, after a job was published: read the
 * counters; only if a thread got sleepy since the last post (JEC even) or
 * some thread sleeps is there anything to do (spool__sleep_new_jobs_cold:
 * make the JEC odd, wake a sleeper if no idle thread can take the job). */
static inline uint64_t spool__sleep_load_counters(spool__sleep_t *s)
{
    /* Seq-cst: one total order with the fences and the sleepers' CAS. */
    return atomic_load_explicit(&s->counters, memory_order_seq_cst);
}

static inline bool spool__sleep_post_needs_work(uint64_t c)
{
    return (spool__counters_jec(c) & 1) == 0 || spool__counters_sleeping(c) != 0;
}

/* A job was pushed on the injector.  True if it woke a sleeper. */
static inline bool spool__sleep_new_injected_jobs(spool__sleep_t *s, unsigned num_jobs,
                                                  bool queue_was_empty)
{
    /* PushFence of sleep.md: pairs with SleepFence in the fall-asleep
     * protocol, so that either the sleeper's final injector check sees the
     * job or we see its sleeping count. */
    spool__fence_seq_cst();
    uint64_t c = spool__sleep_load_counters(s);
    if (spool__sleep_post_needs_work(c))
        return spool__sleep_new_jobs_cold(s, c, num_jobs, queue_was_empty);
    return false;
}

#endif
