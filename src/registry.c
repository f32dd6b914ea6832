/* The registry: pool creation and destruction, the workers' main loop,
 * stealing, injection from outside, and the global pool. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "registry.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool_inline.h"
#include "test_hooks.h"

_Thread_local spool__worker_t *spool__tls_worker SPOOL__TLS_MODEL;
/* Outside a pool spool_join_inline's fast push must fail: limit is below
 * every index.  Never written: the push fails before any store. */
static struct spool__fork_owner_v2 fork_outside_pool = {.limit = INT64_MIN};
__thread struct spool__fork_owner_v2 *spool__tls_fork_v2 = &fork_outside_pool;
atomic_uint spool__fork_generation;

static void *aligned_zalloc(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, SPOOL__CACHE_LINE, size) != 0)
        return NULL;
    memset(p, 0, size);
    return p;
}

/* ---- finding work ------------------------------------------------------ */

static uint64_t next_random(spool__worker_t *w)
{
    uint64_t x = w->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->rng = x;
    return x;
}

/* Steal from the others, starting at a random victim and sweeping all;
 * another sweep if any steal lost a race. */
static spool__job_t *steal(spool__worker_t *w, unsigned *from_victim)
{
    spool_pool_t *reg = w->registry;
    unsigned n = reg->num_threads;
    if (n <= 1)
        return NULL;
    unsigned start = (unsigned)(next_random(w) % n);
    for (;;) {
        bool retry = false;
        for (unsigned i = 0; i < n; i++) {
            unsigned victim = start + i < n ? start + i : start + i - n;
            if (victim == w->index)
                continue;
            spool__job_t *job;
            switch (spool__deque_steal(&reg->workers[victim].deque, &job)) {
            case SPOOL__STEAL_SUCCESS:
                SPOOL__STAT_INC(w->stats.steals);
                w->stolen_from = &reg->workers[victim];
                *from_victim = victim;
                return job;
            case SPOOL__STEAL_RETRY:
                SPOOL__STAT_INC(w->stats.failed_steals);
                retry = true;
                break;
            case SPOOL__STEAL_EMPTY:
                SPOOL__STAT_INC(w->stats.failed_steals);
                break;
            }
        }
        if (!retry)
            return NULL;
    }
}

/* Static and inlined into the wait loop, which runs them once per job;
 * yield.c calls the exported wrappers below.  *from says where the job came
 * from (SPOOL__FROM_*, the victim in bits 8 up), for the timeline; the plain
 * loop's *from is dead and compiled away. */
static inline spool__job_t *take_local(spool__worker_t *w, unsigned *from)
{
    spool__job_t *job = spool__worker_pop(w);
    *from = SPOOL__FROM_OWN;
    /* Broadcasts run once the own deque is empty, before stealing.  Only w
     * takes from its queue, so the take never loses a race. */
    if (job == NULL) {
        *from = SPOOL__FROM_BROADCAST;
        if (spool__deque_take_front(&w->broadcasts, &job) != SPOOL__STEAL_SUCCESS)
            job = NULL;
    }
    return job;
}

static inline spool__job_t *find_work(spool__worker_t *w, unsigned *from)
{
    spool__job_t *job = take_local(w, from);
    if (job == NULL) {
        unsigned victim = 0;
        job = steal(w, &victim);
        *from = SPOOL__FROM_STOLEN | victim << 8;
    }
    if (job == NULL) {
        job = spool__injector_pop(&w->registry->injector);
        *from = SPOOL__FROM_INJECTOR;
    }
    if (job != NULL)
        SPOOL__STAT_INC(w->stats.jobs_executed);
    return job;
}

spool__job_t *spool__worker_take_local(spool__worker_t *w, unsigned *from)
{
    return take_local(w, from);
}

spool__job_t *spool__worker_find_work(spool__worker_t *w, unsigned *from)
{
    return find_work(w, from);
}

/* After a search found a job: are jobs left that a sleeper could take (the
 * injector's, or public ones on any other worker's deque)?  Hints, read
 * with relaxed loads: no wake-up that the protocol promises rests on them
 * (sleep.md, "Wake-ups on work found").  Two loads per worker: a search
 * ends this way once per stretch of idleness, not per job. */
static bool jobs_left(spool__worker_t *w)
{
    spool_pool_t *reg = w->registry;
    if (spool__injector_len_hint(&reg->injector) > 0)
        return true;
    for (unsigned i = 0; i < reg->num_threads; i++)
        if (i != w->index && spool__deque_has_public(&reg->workers[i].deque))
            return true;
    return false;
}

/* Searches until a job turns up (returned, *from says where from) or latch
 * is set (NULL).  ring, if not NULL, records the search and any sleep.
 * counted: the worker is counted idle already (its first search). */
static spool__job_t *search(spool__worker_t *w, spool__core_latch_t *latch,
                            spool__trace_ring_t *ring, size_t capacity, unsigned *from,
                            bool counted)
{
    spool__sleep_t *sleep = &w->registry->sleep;
    uint64_t t0 = ring != NULL ? spool__trace_now() : 0;
    spool__idle_state_t idle;
    spool__sleep_start_looking(sleep, w->index, &idle, counted);
    idle.ring = ring;
    idle.ring_capacity = capacity;
    spool__job_t *job;
    for (;;) {
        /* A set latch: whatever the caller did before it waited is work
         * found. */
        if (spool__core_latch_probe(latch)) {
            job = NULL;
            break;
        }
        job = find_work(w, from);
        if (job != NULL)
            break;
        spool__sleep_no_work_found(sleep, &idle, latch, &w->registry->injector, &w->broadcasts);
    }
    spool__sleep_work_found(sleep, job != NULL && jobs_left(w));
    if (ring != NULL)
        spool__trace_put(ring, capacity, t0, spool__trace_now(), 0, 0,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_SEARCH, 0, 0, ring->depth));
    return job;
}

#if SPOOL__TRACE_ENABLED
/* Runs job, recorded in ring with where it came from. */
static void run_traced(spool__trace_ring_t *ring, size_t capacity, spool__job_t *job,
                       unsigned from)
{
    /* A FIFO's ticket runs its FIFO's front call: take that one now, so
     * that the record names the call that really runs. */
    spool__fifo_job_t taken;
    job = spool__job_fifo_resolve(job, &taken);
    spool__job_info_t info;
    spool__trace_describe(job, &info);
    unsigned depth = ring->depth++;
    uint64_t t0 = spool__trace_now();
    spool__job_execute(job);
    uint64_t t1 = spool__trace_now();
    ring->depth = depth;
    spool__trace_put(ring, capacity, t0, t1, info.fn, info.arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, from & 15u, from >> 8, depth));
}

#endif

void spool__worker_run(spool__worker_t *w, spool__job_t *job, unsigned from)
{
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&w->registry->trace);
    if (t != NULL) {
        run_traced(&t->rings[w->index], t->capacity, job, from);
        return;
    }
#else
    (void)w;
    (void)from;
#endif
    spool__job_execute(job);
}

#if SPOOL__TRACE_ENABLED
/* The wait loop while trace t records: as wait_plain, each job and search
 * recorded.  True once latch is set; false when t is no longer the pool's
 * trace (then the caller picks the loop again). */
static bool wait_traced(spool__worker_t *w, spool__core_latch_t *latch, spool__trace_t *t)
{
    spool__trace_state_t *state = &w->registry->trace;
    spool__trace_ring_t *ring = &t->rings[w->index];
    while (!spool__core_latch_probe(latch)) {
        if (spool__trace_current(state) != t)
            return false;
        unsigned from;
        spool__job_t *job = find_work(w, &from);
        if (job == NULL) {
            job = search(w, latch, ring, t->capacity, &from, false);
            if (job == NULL)
                return true;
        }
        run_traced(ring, t->capacity, job, from);
    }
    return true;
}
#endif

/* The wait loop with no trace: no cost per job for the timeline.  True once
 * latch is set; false if a trace started (noticed when the worker runs out
 * of work: a busy worker joins the trace at its next wait or search). */
static bool wait_plain(spool__worker_t *w, spool__core_latch_t *latch)
{
    while (!spool__core_latch_probe(latch)) {
        /* While work keeps coming (own, stolen or injected) the worker stays
         * active and leaves the shared counters alone: touching them per job
         * made two workers fight over their cache line. */
        /* Two words for where a job came from: the first stays local to the
         * inlined find_work, so its stores are dead and compiled away. */
        unsigned unused, from;
        spool__job_t *job = find_work(w, &unused);
        if (job == NULL) {
            job = search(w, latch, NULL, 0, &from, false);
            if (job == NULL)
                return true;
#if SPOOL__TRACE_ENABLED
            spool__trace_t *t = spool__trace_current(&w->registry->trace);
            if (t != NULL) {
                run_traced(&t->rings[w->index], t->capacity, job, from);
                return false;
            }
#endif
        }
        spool__job_execute(job);
    }
    return true;
}

/* The wait loop, untraced or traced as the pool's trace comes and goes; t
 * is the trace the caller read. */
static inline void wait_loop(spool__worker_t *w, spool__core_latch_t *latch, spool__trace_t *t)
{
#if SPOOL__TRACE_ENABLED
    while (!(t == NULL ? wait_plain(w, latch) : wait_traced(w, latch, t)))
        t = spool__trace_current(&w->registry->trace);
#else
    (void)t;
    wait_plain(w, latch);
#endif
}

void spool__worker_wait_until_cold(spool__worker_t *w, spool__core_latch_t *latch)
{
#if SPOOL__TRACE_ENABLED
    wait_loop(w, latch, spool__trace_current(&w->registry->trace));
#else
    wait_loop(w, latch, NULL);
#endif
}

#if SPOOL__TRACE_ENABLED
/* Out of line, so that the untraced wait does not pay this one's register
 * saves (callgrind: 16 instructions per scope wait in nqueens). */
static SPOOL__NOINLINE void wait_recorded_traced(spool__worker_t *w, spool__core_latch_t *latch,
                                                 spool__trace_t *t, void (*fn)(void *),
                                                 void *arg)
{
    spool__trace_ring_t *ring = &t->rings[w->index];
    unsigned depth = ring->depth++;
    uint64_t t0 = spool__trace_now();
    spool__worker_wait_until_cold(w, latch);
    ring->depth = depth;
    spool__job_info_t info;
    spool__trace_describe_call(fn, arg, &info);
    spool__trace_put(ring, t->capacity, t0, spool__trace_now(), info.fn, info.arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_WAIT, 0, 0, depth));
}
#endif

void spool__worker_wait_recorded_cold(spool__worker_t *w, spool__core_latch_t *latch,
                                      void (*fn)(void *), void *arg)
{
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&w->registry->trace);
    if (t != NULL) {
        wait_recorded_traced(w, latch, t, fn, arg);
        return;
    }
#else
    (void)fn;
    (void)arg;
#endif
    wait_loop(w, latch, NULL); /* the untraced loop, with no second look */
}

void spool__worker_publish(spool__worker_t *w)
{
    /* A scope's local spawns (blocks, FIFO tickets) become counted ones
     * before anyone can see them: the release store of split publishes the
     * count and the new execute function with the job. */
    spool__deque_t *d = &w->deque;
    int64_t end = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* A block or ticket is posted as the calls it holds, so that as many
     * sleepers wake as there are calls to run (deque.md, "Spawn blocks"). */
    int64_t extra_calls = 0;
    for (int64_t i = d->owner_split; i < end; i++) {
        spool__job_t *job = spool__deque_private_job(d, i);
        if (job->execute == spool__scope_local_execute ||
            job->execute == spool__scope_counted_execute)
            extra_calls += (int64_t)spool__scope_block_published(job) - 1;
        else if (spool__job_is_fifo_ticket(job))
            extra_calls += (int64_t)spool__fifo_ticket_published(job) - 1;
    }
    bool was_empty;
    int64_t n = spool__deque_publish(&w->deque, &was_empty);
    if (n <= 0)
        return;
    n += extra_calls;
    /* Post-work protocol for internal jobs (no fence needed: sleep.md). */
    spool__sleep_t *sleep = &w->registry->sleep;
    uint64_t c = spool__sleep_load_counters(sleep);
    if (spool__sleep_post_needs_work(c))
        spool__sleep_new_jobs_cold(sleep, c, n > UINT_MAX ? UINT_MAX : (unsigned)n, was_empty);
}

/* ---- workers ----------------------------------------------------------- */

static void *worker_main(void *arg)
{
    spool__worker_t *w = arg;
    spool_pool_t *reg = w->registry;
    spool__tls_worker = w;
    spool__tls_fork_v2 = (struct spool__fork_owner_v2 *)(void *)&w->deque.bottom;
#ifdef __linux__
    char name[32];
    snprintf(name, sizeof name, "%s-%u", reg->thread_name, w->index);
    name[15] = '\0'; /* Linux keeps 15 characters */
    pthread_setname_np(pthread_self(), name);
#endif
    if (reg->start_handler != NULL)
        reg->start_handler(reg->handler_ctx, w->index);
    /* Counted idle since the pool's start (sleep.md): search first, so that
     * no moment between the handler and the search counts the worker busy
     * (a job's holder that looked then kept its other jobs private).  The
     * search is recorded if a trace runs already (SPOOL_TRACE starts one
     * before the threads): a worker that finds no work still shows its
     * sleeps. */
    spool__trace_ring_t *ring = NULL;
    size_t capacity = 0;
#if SPOOL__TRACE_ENABLED
    spool__trace_t *t = spool__trace_current(&reg->trace);
    if (t != NULL) {
        ring = &t->rings[w->index];
        capacity = t->capacity;
    }
#endif
    unsigned from;
    spool__job_t *job = search(w, &w->terminate, ring, capacity, &from, true);
    if (job != NULL)
        spool__worker_run(w, job, from);
    spool__worker_wait_until(w, &w->terminate);
    spool__tls_worker = NULL; /* the exit handler runs outside the pool */
    spool__tls_fork_v2 = &fork_outside_pool;
    if (reg->exit_handler != NULL)
        reg->exit_handler(reg->handler_ctx, w->index);
    return NULL;
}

/* Sets every worker's terminate latch; sleeping workers are woken. */
static void terminate_workers(spool_pool_t *reg, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (spool__core_latch_set(&reg->workers[i].terminate))
            spool__sleep_notify_worker_latch_is_set(&reg->sleep, i);
}

static void join_workers(spool_pool_t *reg, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        pthread_join(reg->workers[i].thread, NULL);
}

/* ---- lifecycle --------------------------------------------------------- */

int spool__registry_add_work_external(spool_pool_t *reg)
{
    size_t old = atomic_load_explicit(&reg->lifecycle, memory_order_relaxed);
    do {
        if (old & SPOOL__DESTROYING)
            return ECANCELED;
        /* Relaxed: only the count matters, and RMWs on one word are totally
         * ordered: either destroy's RMW sees our increment and waits for the
         * job, or we see its DESTROYING bit. */
    } while (!atomic_compare_exchange_weak_explicit(&reg->lifecycle, &old, old + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    return 0;
}

void spool__registry_work_done(spool_pool_t *reg)
{
    /* Acq_rel pairs with the other decrements and destroy's RMW, so that
     * whoever sees zero has seen all the counted work finish. */
    size_t old = atomic_fetch_sub_explicit(&reg->lifecycle, 1, memory_order_acq_rel);
    if ((old & SPOOL__WORK_MASK) == 1)
        terminate_workers(reg, reg->num_threads);
}

void spool__registry_ref(spool_pool_t *reg)
{
    /* Relaxed: the caller holds a reference already (the pool is alive). */
    atomic_fetch_add_explicit(&reg->refs, 1, memory_order_relaxed);
}

static void registry_free(spool_pool_t *reg, unsigned num_workers)
{
    if (reg->trace_ready)
        spool__trace_destroy(reg);
    for (unsigned i = 0; i < num_workers; i++) {
        spool__deque_destroy(&reg->workers[i].deque);
        spool__job_fifo_destroy(&reg->workers[i].fifo);
        spool__deque_destroy(&reg->workers[i].broadcasts);
        spool__scope_free_spare_blocks(&reg->workers[i]);
    }
    free(reg->workers);
    pthread_mutex_destroy(&reg->broadcast_lock);
    spool__scope_free_pool_blocks(reg);
    spool__job_pool_destroy(&reg->job_pool);
    spool__injector_destroy(&reg->injector);
    spool__sleep_destroy(&reg->sleep);
    free(reg);
}

void spool__registry_unref(spool_pool_t *reg)
{
    /* Acq_rel: the last one out sees every other holder's use finished. */
    if (atomic_fetch_sub_explicit(&reg->refs, 1, memory_order_acq_rel) == 1)
        registry_free(reg, reg->num_threads);
}

/* ---- creation and destruction ------------------------------------------ */

static int resolve_num_threads(const spool_config_t *config, unsigned *out)
{
    unsigned long n = config->num_threads;
    if (n == 0) {
        const char *env = getenv("SPOOL_NUM_THREADS");
        if (env != NULL) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(env, &end, 10);
            if (errno == 0 && end != env && *end == '\0' && env[0] != '-' && v > 0)
                n = v;
        }
    }
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 0 ? (unsigned long)cpus : 1;
    }
    if (n > SPOOL_MAX_THREADS)
        return EINVAL;
    *out = (unsigned)n;
    return 0;
}

static int registry_new(const spool_config_t *config, unsigned n, spool_pool_t **out)
{
    spool_pool_t *reg = aligned_zalloc(sizeof *reg);
    if (reg == NULL)
        return ENOMEM;
    int err = spool__sleep_init(&reg->sleep, n);
    if (err != 0) {
        free(reg);
        return err;
    }
    err = spool__injector_init(&reg->injector);
    if (err != 0) {
        spool__sleep_destroy(&reg->sleep);
        free(reg);
        return err;
    }
    err = spool__job_pool_init(&reg->job_pool);
    if (err != 0) {
        spool__injector_destroy(&reg->injector);
        spool__sleep_destroy(&reg->sleep);
        free(reg);
        return err;
    }
    err = pthread_mutex_init(&reg->broadcast_lock, NULL);
    if (err != 0) {
        spool__job_pool_destroy(&reg->job_pool);
        spool__injector_destroy(&reg->injector);
        spool__sleep_destroy(&reg->sleep);
        free(reg);
        return err;
    }
    reg->workers = aligned_zalloc(n * sizeof *reg->workers);
    if (reg->workers == NULL) {
        registry_free(reg, 0);
        return ENOMEM;
    }
    for (unsigned i = 0; i < n; i++) {
        spool__worker_t *w = &reg->workers[i];
        err = spool__deque_init(&w->deque);
        if (err == 0) {
            err = spool__job_fifo_init(&w->fifo, &spool__spawn_fifo_ops, reg);
            if (err != 0)
                spool__deque_destroy(&w->deque);
        }
        if (err == 0) {
            err = spool__deque_init(&w->broadcasts);
            if (err != 0) {
                spool__job_fifo_destroy(&w->fifo);
                spool__deque_destroy(&w->deque);
            }
        }
        if (err != 0) {
            registry_free(reg, i);
            return err;
        }
        w->registry = reg;
        w->index = i;
        w->rng = UINT64_C(0x9E3779B97F4A7C15) * (i + 1) | 1;
        spool__core_latch_init(&w->terminate);
    }
    reg->num_threads = n;
    atomic_init(&reg->lifecycle, 1);
    atomic_init(&reg->refs, 1);
    reg->stack_size = config->stack_size;
    reg->start_handler = config->start_handler;
    reg->exit_handler = config->exit_handler;
    reg->handler_ctx = config->handler_ctx;
    reg->fork_generation = atomic_load_explicit(&spool__fork_generation, memory_order_relaxed);
    snprintf(reg->thread_name, sizeof reg->thread_name, "%s",
             config->thread_name != NULL ? config->thread_name : "spool");
    err = spool__trace_init(reg);
    if (err != 0) {
        registry_free(reg, n);
        return err;
    }
    reg->trace_ready = true;
    *out = reg;
    return 0;
}

static int start_workers(spool_pool_t *reg)
{
    pthread_attr_t attr;
    int err = pthread_attr_init(&attr);
    if (err != 0)
        return err;
    if (reg->stack_size != 0)
        err = pthread_attr_setstacksize(&attr, reg->stack_size);
    unsigned started = 0;
    while (err == 0 && started < reg->num_threads) {
        err = spool__test_thread_create_error();
        if (err == 0)
            err = pthread_create(&reg->workers[started].thread, &attr, worker_main,
                                 &reg->workers[started]);
        if (err == 0)
            started++;
    }
    pthread_attr_destroy(&attr);
    if (err != 0) {
        /* Refuse outside submissions from here on, as destroy does. */
        atomic_fetch_or_explicit(&reg->lifecycle, SPOOL__DESTROYING, memory_order_relaxed);
        terminate_workers(reg, started);
        join_workers(reg, started);
    }
    return err;
}

/* ---- fork ---------------------------------------------------------------- */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(spool_pool_t *) global_pool;
static bool global_failed; /* guarded by global_lock: first use could not start it */

/* The parent's global pool, abandoned in the child but kept referenced: it
 * is not a leak but memory that cannot be freed safely.  Not static: a
 * static that is only written would be optimised away. */
spool_pool_t *spool__abandoned_global_pool;

/* Hold the global lock across fork() so that the child gets it unlocked and
 * consistent. */
static void atfork_prepare(void)
{
    pthread_mutex_lock(&global_lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&global_lock);
}

/* The child has one thread: every pool's workers are gone.  Forget the
 * global pool (its memory is abandoned: its locks may be held by threads that
 * no longer exist) and retire every existing pool. */
static void atfork_child(void)
{
    /* Relaxed: the child has a single thread. */
    spool_pool_t *old = atomic_exchange_explicit(&global_pool, NULL, memory_order_relaxed);
    if (old != NULL)
        spool__abandoned_global_pool = old;
    global_failed = false;
    atomic_fetch_add_explicit(&spool__fork_generation, 1, memory_order_relaxed);
    spool__tls_worker = NULL;
    spool__tls_fork_v2 = &fork_outside_pool;
    pthread_mutex_unlock(&global_lock);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;


static void register_atfork(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* The size of the first config layout: every field up to handler_ctx. */
#define CONFIG_FIRST_SIZE (offsetof(spool_config_t, handler_ctx) + sizeof(void *))

/* Copies the caller's config (of whatever size its spool.h gave it) into
 * the layout this library knows.  0 or EINVAL. */
static int read_config(const spool_config_t *in, spool_config_t *out)
{
    memset(out, 0, sizeof *out);
    if (in == NULL)
        return 0;
    size_t size = in->size == 0 ? CONFIG_FIRST_SIZE : in->size;
    if (size < CONFIG_FIRST_SIZE || size > 4096) /* 4096: not a size, garbage */
        return EINVAL;
    memcpy(out, in, size < sizeof *out ? size : sizeof *out);
    /* A newer caller's fields we do not know: only zeros (defaults) are
     * safe to ignore. */
    for (size_t i = sizeof *out; i < size; i++)
        if (((const unsigned char *)in)[i] != 0)
            return EINVAL;
    out->size = sizeof *out;
    return 0;
}

int spool_pool_create(const spool_config_t *user_config, spool_pool_t **out)
{
    if (out == NULL)
        return EINVAL;
    pthread_once(&atfork_once, register_atfork);
    spool_config_t copy;
    int err = read_config(user_config, &copy);
    if (err != 0)
        return err;
    const spool_config_t *config = &copy;
    unsigned n;
    err = resolve_num_threads(config, &n);
    if (err != 0)
        return err;
    spool_pool_t *reg;
    err = registry_new(config, n, &reg);
    if (err != 0)
        return err;
    err = start_workers(reg);
    if (err != 0) {
        registry_free(reg, n);
        return err;
    }
    *out = reg;
    return 0;
}

int spool_pool_destroy(spool_pool_t *pool)
{
    if (pool == NULL)
        return EINVAL;
    int err = spool__registry_check_fork(pool);
    if (err != 0)
        return err; /* no threads to join; the memory is abandoned */
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->registry == pool)
        return EDEADLK;
    /* Drop the handle's count and forbid outside submissions in one RMW.
     * Acq_rel: as in spool__registry_work_done. */
    size_t old = atomic_fetch_add_explicit(&pool->lifecycle, SPOOL__DESTROYING - 1,
                                           memory_order_acq_rel);
    if ((old & SPOOL__WORK_MASK) == 1)
        terminate_workers(pool, pool->num_threads);
    join_workers(pool, pool->num_threads);
    spool__trace_finish(pool); /* SPOOL_TRACE's file */
    spool__registry_unref(pool);
    return 0;
}

unsigned spool_pool_num_threads(const spool_pool_t *pool)
{
    return pool != NULL ? pool->num_threads : 0;
}

int spool_pool_stats(const spool_pool_t *pool, unsigned index, spool_worker_stats_t *out,
                     size_t out_size)
{
    if (pool == NULL || out == NULL || index >= pool->num_threads ||
        out_size < sizeof out->jobs_executed)
        return EINVAL;
#ifdef SPOOL_STATS
    const spool__worker_t *w = &pool->workers[index];
    const spool__worker_sleep_t *ws = &pool->sleep.workers[index];
    spool_worker_stats_t st;
    /* Relaxed: statistics order nothing (see SPOOL__STAT_INC). */
    st.jobs_executed = atomic_load_explicit(&w->stats.jobs_executed, memory_order_relaxed);
    st.steals = atomic_load_explicit(&w->stats.steals, memory_order_relaxed);
    st.failed_steals = atomic_load_explicit(&w->stats.failed_steals, memory_order_relaxed);
    st.wakeups_sent = atomic_load_explicit(&w->stats.wakeups_sent, memory_order_relaxed);
    st.sleeps = atomic_load_explicit(&ws->sleeps, memory_order_relaxed);
    st.wakeups_received = atomic_load_explicit(&ws->wakeups_received, memory_order_relaxed);
    /* No more than the caller's struct holds; zeros past what we know. */
    size_t n = out_size < sizeof st ? out_size : sizeof st;
    memcpy(out, &st, n);
    if (out_size > n)
        memset((char *)out + n, 0, out_size - n);
    return 0;
#else
    return ENOTSUP;
#endif
}

/* ---- work from outside ------------------------------------------------- */

int spool__registry_inject(spool_pool_t *reg, spool__job_t *job)
{
    bool was_empty;
    int err = spool__injector_push(&reg->injector, job, &was_empty);
    if (err == 0)
        spool__sleep_new_injected_jobs(&reg->sleep, 1, was_empty);
    return err;
}

typedef struct install_job {
    spool__job_t base;
    spool_fn fn;
    void *arg;
    spool__spin_latch_t *spin; /* the caller is a worker of another pool */
    spool__lock_latch_t *lock; /* the caller is outside any pool */
} install_job_t;

static void install_job_execute(spool__job_t *job)
{
    install_job_t *j = (install_job_t *)job;
    j->fn(j->arg);
    /* j dies once the latch is set.  The installer drops the work count
     * once its wait returns (spool__registry_in_worker), not the job: the
     * installer may still be in the injection's wake-up, reading the pool,
     * when the job has run. */
    if (j->spin != NULL)
        spool__spin_latch_set(j->spin);
    else
        spool__lock_latch_set(j->lock);
}

bool spool__install_describe(const spool__job_t *job, spool__job_info_t *info)
{
    if (job->execute != install_job_execute)
        return false;
    const install_job_t *j = (const install_job_t *)job;
    spool__trace_describe_call(j->fn, j->arg, info);
    return true;
}

int spool__registry_in_worker(spool_pool_t *reg, spool_fn fn, void *arg)
{
    int err = spool__registry_add_work_external(reg);
    if (err != 0)
        return err;
    install_job_t job = {
        .base.execute = install_job_execute, .fn = fn, .arg = arg};
    spool__worker_t *w = spool__current_worker();
    if (w != NULL) {
        /* A worker of another pool keeps running its own pool's jobs while
         * it waits: pools installing into each other cannot deadlock. */
        spool__spin_latch_t latch;
        spool__spin_latch_init(&latch, w, true);
        job.spin = &latch;
        err = spool__registry_inject(reg, &job.base);
        if (err == 0)
            spool__worker_wait_until(w, &latch.core);
    } else {
        spool__lock_latch_t latch;
        err = spool__lock_latch_init(&latch);
        if (err == 0) {
            job.lock = &latch;
            err = spool__registry_inject(reg, &job.base);
            if (err == 0)
                spool__lock_latch_wait(&latch);
            spool__lock_latch_destroy(&latch);
        }
    }
    spool__registry_work_done(reg); /* after the wait: see install_job_execute */
    return err;
}

int spool_pool_install(spool_pool_t *pool, spool_fn fn, void *arg)
{
    if (pool == NULL || fn == NULL)
        return EINVAL;
    int err = spool__registry_check_fork(pool);
    if (err != 0)
        return err;
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->registry == pool) {
        fn(arg);
        return 0;
    }
    return spool__registry_in_worker(pool, fn, arg);
}

/* ---- the global pool --------------------------------------------------- */

/* The global pool is never destroyed: SPOOL_TRACE's file is written at exit
 * (the workers may still be running; trace.md says why that is safe). */
static void write_global_trace(void)
{
    /* Acquire pairs with the release stores below: the pool is initialised. */
    spool_pool_t *pool = atomic_load_explicit(&global_pool, memory_order_acquire);
    if (pool != NULL)
        spool__trace_finish(pool);
}

static void global_pool_started(spool_pool_t *pool)
{
    static bool registered; /* guarded by global_lock */
    if (pool->trace.env_path != NULL && !registered) {
        registered = true;
        atexit(write_global_trace);
    }
}

spool_pool_t *spool__global_registry(void)
{
    /* Acquire pairs with the release stores below: the pool is initialised. */
    spool_pool_t *pool = atomic_load_explicit(&global_pool, memory_order_acquire);
    if (SPOOL__LIKELY(pool != NULL))
        return pool;
    pthread_mutex_lock(&global_lock);
    pool = atomic_load_explicit(&global_pool, memory_order_relaxed);
    if (pool == NULL && !global_failed) {
        if (spool_pool_create(NULL, &pool) == 0) {
            /* Release pairs with the acquire load above. */
            atomic_store_explicit(&global_pool, pool, memory_order_release);
            global_pool_started(pool);
        } else
            global_failed = true;
    }
    pthread_mutex_unlock(&global_lock);
    return pool;
}

int spool_global_init(const spool_config_t *config)
{
    pthread_mutex_lock(&global_lock);
    int err = EALREADY;
    if (atomic_load_explicit(&global_pool, memory_order_relaxed) == NULL) {
        spool_pool_t *pool;
        err = spool_pool_create(config, &pool);
        if (err == 0) {
            /* Release pairs with the acquire load in spool__global_registry. */
            atomic_store_explicit(&global_pool, pool, memory_order_release);
            global_failed = false;
            global_pool_started(pool);
        }
    }
    pthread_mutex_unlock(&global_lock);
    return err;
}

int spool_current_thread_index(void)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL ? (int)w->index : -1;
}

unsigned spool_current_num_threads(void)
{
    spool__worker_t *w = spool__current_worker();
    if (w != NULL)
        return w->registry->num_threads;
    spool_pool_t *global = spool__global_registry();
    return global != NULL ? global->num_threads : 1;
}
