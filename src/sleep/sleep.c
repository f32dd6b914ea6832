/* The sleep module: slow paths.  The protocol is written down in sleep.md. */
#include "sleep/sleep.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

int spool__sleep_init(spool__sleep_t *s, unsigned num_workers, unsigned num_idle)
{
    s->workers = aligned_alloc(SPOOL__CACHE_LINE, num_workers * sizeof *s->workers);
    if (s->workers == NULL)
        return ENOMEM;
    for (unsigned i = 0; i < num_workers; i++) {
        spool__worker_sleep_t *ws = &s->workers[i];
        int err = pthread_mutex_init(&ws->lock, NULL);
        if (err == 0) {
            err = pthread_cond_init(&ws->cond, NULL);
            if (err != 0)
                pthread_mutex_destroy(&ws->lock);
        }
        if (err != 0) {
            s->num_workers = i;
            spool__sleep_destroy(s);
            return err;
        }
        ws->is_blocked = false;
        ws->isolated = false;
        ws->keep = 0;
    }
    s->num_workers = num_workers;
    atomic_init(&s->isolated_sleepers, 0);
    spool__sleep_set_rounds(s, 1, 0);
    /* Every worker idle until its thread runs (sleep.md); the caller slot
     * is not: it counts only while a caller holds it and searches. */
    atomic_init(&s->counters, (uint64_t)num_idle << SPOOL__INACTIVE_SHIFT);
    return 0;
}

void spool__sleep_set_rounds(spool__sleep_t *s, unsigned threads, unsigned cpus)
{
    s->spin_rounds = spool__tuning.spin_rounds;
    s->rounds_until_sleepy = spool__tuning.rounds_until_sleepy;
    s->keep_max = spool__tuning.keep_max;
    if (cpus > 0 && threads > cpus) {
        s->spin_rounds = 0;
        s->keep_max = 0;
        if (s->rounds_until_sleepy > spool__tuning.oversubscribed_rounds)
            s->rounds_until_sleepy = spool__tuning.oversubscribed_rounds;
    }
}

void spool__sleep_destroy(spool__sleep_t *s)
{
    for (unsigned i = 0; i < s->num_workers; i++) {
        pthread_cond_destroy(&s->workers[i].cond);
        pthread_mutex_destroy(&s->workers[i].lock);
    }
    free(s->workers);
}

/* Takes a sleeper's lock, counting the times it was held (statistics). */
static void lock_sleep(spool__worker_sleep_t *ws)
{
#ifdef SPOOL_STATS
    if (pthread_mutex_trylock(&ws->lock) == 0)
        return;
    SPOOL__COUNT(lock_waits);
#endif
    pthread_mutex_lock(&ws->lock);
}

/* Wakes worker index if it is blocked: a sleeper counted in the counters
 * (for work), or, if any, also an isolated one (isolate.md: for its latch,
 * or for its region's work).  True if it did. */
static bool wake_thread(spool__sleep_t *s, unsigned index, bool any)
{
    spool__worker_sleep_t *ws = &s->workers[index];
    bool woke = false;
    SPOOL__COUNT(wake_probes);
    lock_sleep(ws);
    if (ws->is_blocked && (any || !ws->isolated)) {
        ws->is_blocked = false;
        pthread_cond_signal(&ws->cond);
        /* The waker, not the sleeper, takes the sleeper off the count, so
         * that posters see it as awake at once and do not wake another
         * thread for the same job.  Seq-cst: see spool__sleep_start_looking.
         * An isolated sleeper was not counted there. */
        if (!ws->isolated) {
            atomic_fetch_sub_explicit(&s->counters, SPOOL__ONE_SLEEPING, memory_order_seq_cst);
            SPOOL__COUNT(rmw_sleep);
        }
        woke = true;
    }
    pthread_mutex_unlock(&ws->lock);
    if (woke)
        SPOOL__COUNT(wakeups_sent);
    return woke;
}

bool spool__sleep_wake_specific_thread(spool__sleep_t *s, unsigned index)
{
    return wake_thread(s, index, true);
}

/* Wakes up to num_to_wake of the sleepers counted for work.  True if it
 * woke any. */
static bool wake_any_threads(spool__sleep_t *s, unsigned num_to_wake)
{
    bool woke = false;
    for (unsigned i = 0; i < s->num_workers && num_to_wake > 0; i++)
        if (wake_thread(s, i, false)) {
            num_to_wake--;
            woke = true;
        }
    return woke;
}

void spool__sleep_wake_one(spool__sleep_t *s)
{
    wake_any_threads(s, 1);
}

bool spool__sleep_new_jobs_cold(spool__sleep_t *s, uint64_t c, unsigned num_jobs,
                                bool queue_was_empty)
{
    /* Make the JEC odd if it is even (a thread got sleepy since the last
     * post): that thread's final comparison then fails and it searches once
     * more instead of sleeping through our job.  Seq-cst: one total order
     * with the sleepers' CAS in fall_asleep and with the fences. */
    while ((spool__counters_jec(c) & 1) == 0) {
        SPOOL__COUNT(rmw_sleep);
        if (atomic_compare_exchange_weak_explicit(&s->counters, &c, c + SPOOL__ONE_JEC,
                                                  memory_order_seq_cst, memory_order_seq_cst)) {
            c += SPOOL__ONE_JEC;
            break;
        }
    }
    unsigned sleeping = spool__counters_sleeping(c);
    if (sleeping == 0)
        return false;
    unsigned idle = spool__counters_inactive(c) - sleeping;
    /* A non-empty queue says the idle threads are not keeping up. */
    if (!queue_was_empty)
        return wake_any_threads(s, num_jobs < sleeping ? num_jobs : sleeping);
    if (idle < num_jobs) {
        unsigned wanted = num_jobs - idle;
        return wake_any_threads(s, wanted < sleeping ? wanted : sleeping);
    }
    return false;
}

/* Make the JEC even if it is odd, and return the value that results. */
static uint64_t announce_sleepy(spool__sleep_t *s)
{
    /* Seq-cst: see spool__sleep_new_jobs_cold. */
    uint64_t c = atomic_load_explicit(&s->counters, memory_order_seq_cst);
    while ((spool__counters_jec(c) & 1) != 0) {
        SPOOL__COUNT(rmw_sleep);
        if (atomic_compare_exchange_weak_explicit(&s->counters, &c, c + SPOOL__ONE_JEC,
                                                  memory_order_seq_cst, memory_order_seq_cst))
            return spool__counters_jec(c + SPOOL__ONE_JEC);
    }
    return spool__counters_jec(c);
}

static void wake_fully(spool__idle_state_t *idle)
{
    idle->rounds = 0;
    idle->jobs_counter = SPOOL__JEC_DUMMY;
}

/* Back to just before sleepy: one more search, then sleepy again. */
static void wake_partly(spool__sleep_t *s, spool__idle_state_t *idle)
{
    idle->rounds = s->rounds_until_sleepy;
    idle->jobs_counter = SPOOL__JEC_DUMMY;
}

static void fall_asleep(spool__sleep_t *s, spool__idle_state_t *idle, spool__core_latch_t *latch,
                        bool (*has_work)(void *arg), void *arg)
{
    if (!spool__core_latch_get_sleepy(latch))
        return; /* set meanwhile: the caller's loop will see it */

    spool__worker_sleep_t *ws = &s->workers[idle->worker_index];
    lock_sleep(ws);
    if (!spool__core_latch_fall_asleep(latch)) {
        pthread_mutex_unlock(&ws->lock);
        wake_fully(idle);
        return;
    }

    /* Seq-cst: see spool__sleep_new_jobs_cold. */
    uint64_t c = atomic_load_explicit(&s->counters, memory_order_seq_cst);
    for (;;) {
        if (spool__counters_jec(c) != idle->jobs_counter) {
            /* A job was posted since we got sleepy: search again. */
            wake_partly(s, idle);
            spool__core_latch_wake_up(latch);
            pthread_mutex_unlock(&ws->lock);
            return;
        }
        /* Fails, and reloads c, if anything changed, the JEC included. */
        SPOOL__COUNT(rmw_sleep);
        if (atomic_compare_exchange_weak_explicit(&s->counters, &c, c + SPOOL__ONE_SLEEPING,
                                                  memory_order_seq_cst, memory_order_seq_cst))
            break;
    }

    /* SleepFence of sleep.md: pairs with PushFence in
     * spool__sleep_new_injected_jobs and spool__sleep_new_broadcast (and
     * the caller slot's ReleaseFence, wait.md).  Either the final check
     * sees the job or broadcast, or its poster sees us counted as
     * sleeping.  (The check reads with relaxed loads: the fence pair
     * orders them after the push.) */
    spool__fence_seq_cst();
    if (has_work(arg)) {
        /* Nobody will wake us for that job: undo our own count. */
        atomic_fetch_sub_explicit(&s->counters, SPOOL__ONE_SLEEPING, memory_order_seq_cst);
        SPOOL__COUNT(rmw_sleep);
    } else {
        /* We took the mutex before counting ourselves as sleeping, so a waker
         * that saw the count blocks on the mutex until cond_wait releases
         * it, and then sees is_blocked. */
        ws->is_blocked = true;
        idle->slept = true;
        SPOOL__STAT_INC(ws->sleeps);
        uint64_t t0 = idle->ring != NULL ? spool__trace_now() : 0;
        while (ws->is_blocked)
            pthread_cond_wait(&ws->cond, &ws->lock);
        SPOOL__STAT_INC(ws->wakeups_received);
        if (idle->ring != NULL)
            spool__trace_put(idle->ring, idle->ring_capacity, t0, spool__trace_now(), 0, 0,
                             SPOOL__TRACE_INFO(SPOOL__TRACE_SLEEP, 0, 0, idle->ring->depth));
    }
    wake_fully(idle);
    spool__core_latch_wake_up(latch);
    pthread_mutex_unlock(&ws->lock);
}

/* Past its rounds: does the worker keep looking (it yields if so)?  Only
 * while the search is younger than its keep and no yield of it returned
 * late (sleep.md, "Keeping ready"): a late yield gave the CPU to a thread
 * that wanted it, and a worker that keeps yielding to such a thread waits
 * for its time slice to end when work comes, where a sleeper's wake-up
 * would run it at once. */
static bool keeps_looking(spool__sleep_t *s, spool__idle_state_t *idle)
{
    uint64_t keep = s->workers[idle->worker_index].keep;
    if (keep == 0 || idle->crowded)
        return false;
    idle->kept = true;
    uint64_t now = spool__ticks();
    if (now - idle->since >= keep)
        return false;
    sched_yield();
    /* Late: a quarter of the longest keep, far above a yield that finds
     * nobody else to run (even on a virtual CPU), and well below a busy
     * thread's time slice. */
    if (spool__ticks() - now > s->keep_max / 4)
        idle->crowded = true;
    return true;
}

void spool__sleep_learn(spool__sleep_t *s, const spool__idle_state_t *idle)
{
    spool__worker_sleep_t *ws = &s->workers[idle->worker_index];
    ws->keep = spool__sleep_next_keep(ws->keep, spool__ticks() - idle->since, s->keep_max);
}

void spool__sleep_no_work_found(spool__sleep_t *s, spool__idle_state_t *idle,
                                spool__core_latch_t *latch, bool (*has_work)(void *arg),
                                void *arg)
{
    /* The clock is read at the first fruitless round, not at the search's
     * start: a search that finds work at once reads nothing. */
    if (idle->since == 0)
        idle->since = spool__ticks();
    if (idle->rounds < s->spin_rounds) {
        /* The first rounds spin, twice as long each time: a joiner whose
         * stolen half ends within microseconds sees its latch without a
         * system call per round. */
        for (unsigned i = 0; i < 1u << idle->rounds; i++)
            spool__cpu_relax();
        idle->rounds++;
    } else if (idle->rounds < s->rounds_until_sleepy) {
        sched_yield();
        SPOOL__COUNT(yields);
        idle->rounds++;
    } else if (idle->rounds == s->rounds_until_sleepy) {
        if (keeps_looking(s, idle)) {
            SPOOL__COUNT(yields);
            return;
        }
        idle->jobs_counter = announce_sleepy(s);
        idle->rounds++;
        sched_yield();
        SPOOL__COUNT(yields);
    } else {
        fall_asleep(s, idle, latch, has_work, arg);
    }
}

void spool__sleep_no_work_found_isolated(spool__sleep_t *s, spool__idle_state_t *idle,
                                         spool__core_latch_t *latch,
                                         bool (*has_work)(void *arg), void *arg)
{
    /* As spool__sleep_no_work_found's rounds: spin, then yield, then sleep. */
    if (idle->rounds < s->spin_rounds) {
        for (unsigned i = 0; i < 1u << idle->rounds; i++)
            spool__cpu_relax();
        idle->rounds++;
    } else if (idle->rounds < s->rounds_until_sleepy) {
        sched_yield();
        SPOOL__COUNT(yields);
        idle->rounds++;
    } else {
        spool__sleep_isolated(s, idle->worker_index, latch, has_work, arg);
        idle->rounds = 0;
    }
}

void spool__sleep_isolated(spool__sleep_t *s, unsigned index, spool__core_latch_t *latch,
                           bool (*has_work)(void *arg), void *arg)
{
    if (!spool__core_latch_get_sleepy(latch))
        return; /* set meanwhile: the caller's loop will see it */
    spool__worker_sleep_t *ws = &s->workers[index];
    lock_sleep(ws);
    if (spool__core_latch_fall_asleep(latch)) {
        /* Seq-cst, then SleepFence: pairs with PushFence before the load
         * in spool__sleep_wake_isolated.  Either the check below sees the
         * work, or its poster sees this count and wakes us (it takes our
         * mutex, which we hold until the wait releases it). */
        atomic_fetch_add_explicit(&s->isolated_sleepers, 1, memory_order_seq_cst);
        SPOOL__COUNT(rmw_sleep);
        spool__fence_seq_cst();
        if (!has_work(arg)) {
            ws->isolated = true;
            ws->is_blocked = true;
            SPOOL__STAT_INC(ws->sleeps);
            while (ws->is_blocked)
                pthread_cond_wait(&ws->cond, &ws->lock);
            SPOOL__STAT_INC(ws->wakeups_received);
            ws->isolated = false;
        }
        /* Relaxed: a count that only makes posters look. */
        atomic_fetch_sub_explicit(&s->isolated_sleepers, 1, memory_order_relaxed);
        SPOOL__COUNT(rmw_sleep);
        spool__core_latch_wake_up(latch);
    }
    pthread_mutex_unlock(&ws->lock);
}

void spool__sleep_wake_isolated(spool__sleep_t *s)
{
    /* Seq-cst: after the caller's PushFence, pairs with the sleeper's count
     * and SleepFence in spool__sleep_isolated. */
    if (atomic_load_explicit(&s->isolated_sleepers, memory_order_seq_cst) == 0)
        return;
    for (unsigned i = 0; i < s->num_workers; i++) {
        spool__worker_sleep_t *ws = &s->workers[i];
        SPOOL__COUNT(wake_probes);
        lock_sleep(ws);
        if (ws->is_blocked && ws->isolated) {
            ws->is_blocked = false;
            pthread_cond_signal(&ws->cond);
        }
        pthread_mutex_unlock(&ws->lock);
    }
}

void spool__sleep_new_broadcast(spool__sleep_t *s)
{
    /* PushFence of sleep.md, as for injected jobs: pairs with SleepFence in
     * fall_asleep.  Either a worker's final check sees its broadcast queue
     * non-empty, or we see it counted as sleeping below and wake it. */
    spool__fence_seq_cst();
    /* Isolated sleepers may have their part of it too. */
    spool__sleep_wake_isolated(s);
    uint64_t c = spool__sleep_load_counters(s);
    if (!spool__sleep_post_needs_work(c))
        return;
    /* Make the JEC odd so that sleepy workers search again (no wake-up
     * wanted here: num_jobs 0), then wake every sleeper: each of them has a
     * part of the broadcast to run. */
    spool__sleep_new_jobs_cold(s, c, 0, true);
    if (spool__counters_sleeping(c) != 0)
        wake_any_threads(s, s->num_workers);
}
