/*
 * The wait layer (wait.h, wait.md): the one take and its filter, running
 * what was taken, and the one loop every wait goes through.
 */
#include "scheduler/wait.h"

#include "scheduler/pool.h"
#include "scheduler/worker.h"
#include "platform/spin.h"

/* ---- contexts of taken jobs ------------------------------------------------- */

/* w takes a job whose context is x from below its top entry (its own older
 * job, a stolen one, an injected one): the top entry covers w's bottom
 * first (isolate.md, X1'), then w runs in x until the job returns.  True if
 * an entry was pushed (left after the job). */
static SPOOL__NOINLINE bool enter_taken(spool__worker_t *w, spool__context_t x)
{
    int64_t bottom = atomic_load_explicit(&w->deque.bottom, memory_order_relaxed);
    spool__ctx_cover(&w->ctx, bottom);
    return spool__ctx_enter(&w->ctx, bottom, x);
}

/* The context of a job taken from a deque whose owner's contexts are c, at
 * index i: its label if it carries one, else (a join frame) the entry that
 * covers i (context.h). */
static inline spool__context_t context_of(const spool__job_t *job, const spool__ctx_stack_t *c,
                                          int64_t i)
{
    spool__context_t x;
    if (!spool__job_label(job, &x))
        x = spool__ctx_lookup(c, i);
    return x;
}

/* Would filter f accept w's own job at index i, below w's top entry's base
 * (older than the code running now)?  By its context: a private job's own
 * (only w can take it), a public one's by its tag (a thief may take it
 * meanwhile, so its memory is not read). */
static bool own_older_accepted(spool__worker_t *w, spool__filter_t f, int64_t i)
{
    if (f.region == 0)
        return true;
    spool__deque_t *d = &w->deque;
    if (i >= d->owner_split)
        return context_of(spool__deque_private_job(d, i), &w->ctx, i).region == f.region;
    uint64_t tag = spool__deque_tag(d, i);
    uint64_t region = tag != 0 ? spool__tag_region(tag) : spool__ctx_lookup(&w->ctx, i).region;
    return region == f.region;
}

/* w took its own job from index i: an older one runs in its own context. */
static inline void own_taken(spool__worker_t *w, const spool__job_t *job, int64_t i,
                             spool__taken_t *t)
{
    t->from = SPOOL__FROM_OWN;
    t->entered = false;
    /* Pushed since the code running now began (above its entry's base):
     * made by it or by what it ran, so the code's own work, in its
     * context. */
    if (SPOOL__UNLIKELY(i < w->ctx.top_base))
        t->entered = enter_taken(w, context_of(job, &w->ctx, i));
}

spool__job_t *spool__take_own(spool__worker_t *w, spool__filter_t f, spool__taken_t *t)
{
    spool__deque_t *d = &w->deque;
    /* Only w pushes: a relaxed look says whether there is anything. */
    int64_t i = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    if (i < atomic_load_explicit(&d->top, memory_order_relaxed))
        return NULL;
    /* Decided before the pop, so that a job not taken stays where it is. */
    if (SPOOL__UNLIKELY(i < w->ctx.top_base) && !own_older_accepted(w, f, i))
        return NULL;
    spool__job_t *job = spool__worker_pop(w); /* the job at i, unless a thief took it */
    if (job != NULL)
        own_taken(w, job, i, t);
    return job;
}

bool spool__take_popped(spool__worker_t *w, spool__filter_t f, spool__job_t *job, int64_t i,
                        spool__taken_t *t)
{
    if (SPOOL__UNLIKELY(i < w->ctx.top_base) && !own_older_accepted(w, f, i)) {
        if (!spool__deque_push(&w->deque, job)) /* back at i: it was private */
            spool__abort("internal error: a job could not be put back");
        return false;
    }
    own_taken(w, job, i, t);
    return true;
}

/* ---- the take ------------------------------------------------------------------ */

static uint64_t next_random(spool__worker_t *w)
{
    uint64_t x = w->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->rng = x;
    return x;
}

/* An isolated thief's test of a victim's oldest public job, at index t with
 * its tag (set at publication, worker.c): of the region?  A job with a
 * label says so in its tag; a join frame's context is its position's. */
typedef struct region_of {
    const spool__worker_t *victim;
    uint64_t region;
} region_of_t;

static bool of_region(const void *arg, int64_t t, uint64_t tag)
{
    const region_of_t *r = arg;
    if (tag != 0)
        return spool__tag_region(tag) == r->region;
    return spool__ctx_lookup(&r->victim->ctx, t).region == r->region;
}

/* A spool__injector_keep_fn: is job one a worker of another pool waits for
 * (an install from it)?  The isolated waiters take those (job.h). */
static bool from_worker(const spool__job_t *job, const void *unused)
{
    (void)unused;
    const spool__job_kind_t *k = spool__job_kind(job);
    return k->from_worker != NULL && k->from_worker(job);
}
/* Steals for w, with filter region (0: any job): a sweep of the other
 * workers from a random one (or, in a region, the next one), another if
 * any steal lost a race.  NULL if none. */
static spool__job_t *steal(spool__worker_t *w, uint64_t region, spool__taken_t *tk)
{
    spool_pool_t *pool = w->pool;
    unsigned n = pool->num_slots; /* the caller slot's deque too */
    if (n <= 1)
        return NULL;
    unsigned start = region == 0 ? (unsigned)(next_random(w) % n) : w->index + 1;
    for (;;) {
        bool retry = false;
        for (unsigned k = 0; k < n; k++) {
            unsigned victim = (start + k) % n;
            if (victim == w->index)
                continue;
            spool__worker_t *v = &pool->workers[victim];
            spool__job_t *job;
            int64_t t;
            spool__steal_t r;
            if (region == 0) {
                spool__demand_before(&w->demand, victim, &v->deque);
                r = spool__deque_steal_at(&v->deque, &job, &t);
            } else {
                region_of_t of = {v, region};
                r = spool__deque_steal_if(&v->deque, &job, &t, of_region, &of);
            }
            if (r == SPOOL__STEAL_SUCCESS) {
                SPOOL__STAT_INC(w->stats.steals);
                if (region == 0)
                    spool__demand_stolen(&w->demand, victim);
                w->stolen_from = v;
                tk->from = SPOOL__FROM_STOLEN | victim << 8;
                tk->entered = enter_taken(w, context_of(job, &v->ctx, t));
                return job;
            }
            retry |= r == SPOOL__STEAL_RETRY;
            /* Its typed frames, after its jobs (frame_jobs.h): in its own
             * context, its label. */
            job = spool__worker_steal_frame(w, v, victim, region, tk, &retry);
            if (job != NULL) {
                SPOOL__STAT_INC(w->stats.steals);
                tk->entered = enter_taken(w, context_of(job, &v->ctx, 0));
                return job;
            }
            SPOOL__STAT_INC(w->stats.failed_steals);
        }
        if (!retry)
            return NULL;
    }
}

spool__job_t *spool__take(spool__worker_t *w, spool__filter_t f, spool__taken_t *t)
{
    spool__job_t *job;
    t->entered = false;
    /* Its own newest. */
    job = spool__take_own(w, f, t);
    if (job != NULL)
        goto found;
    /* Its oldest broadcast, of any region: each needs every worker, and two
     * regions' broadcasts would otherwise wait for each other's waiters.
     * Only w takes from its queue, so the take never loses a race. */
    if (spool__deque_take_front(&w->broadcasts, &job) == SPOOL__STEAL_SUCCESS) {
        t->from = SPOOL__FROM_BROADCAST;
        goto found;
    }
    if (f.local)
        return NULL;
    spool_pool_t *pool = w->pool;
    /* The free caller slot's broadcasts: a worker serves its index (an
     * exception of every filter, as broadcasts are). */
    if (SPOOL__UNLIKELY(spool__slot_needs_serving(pool)) && w->index < pool->num_threads) {
        t->from = SPOOL__FROM_BROADCAST;
        return pool->slot_service;
    }
    if (f.region != 0) {
        /* An install by another pool's worker: it needs one of ours, and
         * that worker may hold up our region (it runs in our region). */
        job = spool__injector_take_if(&pool->injector, from_worker, NULL);
        if (job != NULL) {
            t->from = SPOOL__FROM_INJECTOR;
            goto found;
        }
    }
    job = steal(w, f.region, t);
    if (job != NULL)
        goto found;
    if (f.region != 0)
        return NULL;
    job = spool__injector_pop(&pool->injector);
    if (job == NULL)
        return NULL;
    t->from = SPOOL__FROM_INJECTOR;
    /* Work from outside: in its own context (none, unless it has one). */
    spool__context_t x = {NULL, 0};
    (void)spool__job_label(job, &x);
    t->entered = enter_taken(w, x);
found:
    SPOOL__STAT_INC(w->stats.jobs_executed);
    return job;
}

spool__filter_t spool__filter_here(spool__worker_t *w, bool local)
{
    return (spool__filter_t){w->ctx.top.region, local};
}

/* ---- running what was taken --------------------------------------------------- */

#if SPOOL__TRACE_ENABLED
/* Runs job, recorded in trace tr with where it came from.  A kind whose
 * calls its own execute records (spawn blocks, tickets: job.h) is not
 * recorded as a whole; the first call it records says where the job came
 * from. */
static SPOOL__NOINLINE void run_traced(spool__worker_t *w, spool__trace_t *tr, spool__job_t *job,
                                       unsigned from)
{
    if (!spool__job_is_join(job) && spool__job_kind(job)->records_calls) {
        spool__trace_t *saved = w->recording;
        unsigned saved_from = w->trace_from;
        w->recording = tr;
        w->trace_from = from;
        spool__job_execute(job);
        w->recording = saved;
        w->trace_from = saved_from;
        return;
    }
    spool__trace_ring_t *ring = &tr->rings[w->index];
    spool__job_info_t info;
    spool__job_describe(job, &info);
    unsigned depth = ring->depth++;
    unsigned saved = w->drop_level;
    w->drop_level = 0;
    uint64_t t0 = spool__trace_now();
    spool__job_execute(job);
    uint64_t t1 = spool__trace_now();
    ring->depth = depth;
    unsigned dropped = w->drop_level == depth + 1 ? SPOOL__FROM_DROPPED : 0;
    w->drop_level = saved;
    spool__trace_put(ring, tr->capacity, t0, t1, info.fn, info.arg,
                     SPOOL__TRACE_INFO(SPOOL__TRACE_JOB, (from & 15u) | dropped, from >> 8, depth));
}
#endif

void spool__run_taken(spool__worker_t *w, spool__job_t *job, spool__taken_t t)
{
#if SPOOL__TRACE_ENABLED
    spool__trace_t *tr = spool__trace_current(&w->pool->trace);
    if (SPOOL__UNLIKELY(tr != NULL))
        run_traced(w, tr, job, t.from);
    else
        spool__job_execute(job);
#else
    spool__job_execute(job);
#endif
    if (SPOOL__UNLIKELY(t.entered))
        spool__worker_ctx_pop(w);
}

/* ---- searching and sleeping ---------------------------------------------------- */

/* After a search found a job: are jobs left that a sleeper could take (the
 * injector's, or public ones on any other worker's deque)?  Hints, read
 * with relaxed loads: no wake-up that the protocol promises rests on them
 * (sleep.md, "Wake-ups on work found").  Two loads per worker: a search
 * ends this way once per stretch of idleness, not per job. */
static bool jobs_left(spool__worker_t *w)
{
    spool_pool_t *pool = w->pool;
    if (spool__injector_len_hint(&pool->injector) > 0)
        return true;
    for (unsigned i = 0; i < pool->num_slots; i++)
        if (i != w->index && (spool__deque_has_public(&pool->workers[i].deque) ||
                              spool__worker_frames_public(&pool->workers[i])))
            return true;
    return false;
}

/* Would w's take with region r accept its own newest job (as
 * spool__take_own)? */
static bool own_newest_takeable(spool__worker_t *w, uint64_t r)
{
    spool__deque_t *d = &w->deque;
    int64_t newest = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    if (newest < atomic_load_explicit(&d->top, memory_order_relaxed))
        return false;
    return newest >= w->ctx.top_base ||
           own_older_accepted(w, (spool__filter_t){r, false}, newest);
}

/* A sleeper's final check, after its count and SleepFence: work posted
 * with a PushFence, which no take of its may have seen yet (sleep.md): the
 * pool's queue, its broadcasts, the free caller slot's broadcasts, and a
 * claim of its dock (lend.md). */
static bool posted_work(void *arg)
{
    spool__worker_t *w = arg;
    spool_pool_t *pool = w->pool;
    /* Relaxed, as the others: after the SleepFence (lend.md, ClaimFence). */
    return !spool__injector_is_empty(&pool->injector) || spool__deque_len(&w->broadcasts) > 0 ||
           (w->index < pool->num_threads && spool__slot_needs_serving(pool)) ||
           spool__dock_claimed(atomic_load_explicit(&w->dock, memory_order_relaxed));
}

/* The isolated sleeper's final check, after its count and SleepFence: is a
 * job its filter takes where it could take it? */
typedef struct region_check {
    spool__worker_t *w;
    uint64_t region;
} region_check_t;

static bool region_has_work(void *arg)
{
    const region_check_t *c = arg;
    spool__worker_t *w = c->w;
    spool_pool_t *pool = w->pool;
    for (unsigned v = 0; v < pool->num_slots; v++) {
        int64_t t;
        uint64_t tag;
        region_of_t of = {&pool->workers[v], c->region};
        if (spool__deque_peek_oldest(&pool->workers[v].deque, &t, &tag) && of_region(&of, t, tag))
            return true;
        if (v != w->index && spool__worker_frames_of_region(&pool->workers[v], c->region))
            return true;
    }
    if (own_newest_takeable(w, c->region))
        return true;
    return spool__deque_len(&w->broadcasts) > 0 ||
           (w->index < pool->num_threads && spool__slot_needs_serving(pool)) ||
           spool__injector_has_if(&pool->injector, from_worker, NULL);
}

/* Searches with filter f until a job turns up (returned, *t says where
 * from) or latch is set (NULL), sleeping between rounds.  A search of
 * region 0 counts w idle (counted: it is already, a new worker's first
 * search) and sleeps in the counters' protocol; a region's search is not
 * counted and sleeps as an isolated sleeper (isolate.md).  lent: NULL, or
 * at w's top level where it for a claim that came with the job found (to
 * run after it, lend.md); w's dock is open while it searches there, and a
 * claim alone is returned as the job.  Recorded on the timeline if it
 * records. */
static spool__job_t *search(spool__worker_t *w, spool__filter_t f, spool__core_latch_t *latch,
                            spool__taken_t *t, bool counted, spool__job_t **lent)
{
    spool__sleep_t *sleep = &w->pool->sleep;
    spool__idle_state_t idle;
    if (f.region == 0)
        spool__sleep_start_looking(sleep, w->index, &idle, counted);
    else
        spool__sleep_start_isolated(&idle, w->index);
    idle.ring = NULL;
    idle.ring_capacity = 0;
#if SPOOL__TRACE_ENABLED
    spool__trace_t *tr = spool__trace_current(&w->pool->trace);
    if (tr != NULL) {
        idle.ring = &tr->rings[w->index];
        idle.ring_capacity = tr->capacity;
    }
#endif
    uint64_t t0 = idle.ring != NULL ? spool__trace_now() : 0;
    spool__job_t *job;
    if (f.region == 0) {
        if (lent != NULL)
            spool__dock_open(&w->dock);
        for (;;) {
            /* A set latch: whatever the caller did before it waited is work
             * found. */
            if (spool__core_latch_probe(latch)) {
                job = NULL;
                break;
            }
            if (lent != NULL && (job = spool__dock_take(&w->dock)) != NULL) {
                *t = (spool__taken_t){SPOOL__FROM_LENT, false};
                break;
            }
            job = spool__take(w, f, t);
            if (job != NULL) {
                if (lent != NULL)
                    *lent = spool__dock_close(&w->dock);
                break;
            }
            /* A thief that asks for w's typed frames while w waits here
             * gets them now, not when w's code spawns or syncs again. */
            spool__worker_frames_share(w, false);
            spool__sleep_no_work_found(sleep, &idle, latch, posted_work, w);
        }
        spool__sleep_work_found(sleep, job != NULL && jobs_left(w));
        if (idle.kept || idle.slept)
            spool__sleep_learn(sleep, &idle);
    } else {
        region_check_t check = {w, f.region};
        for (;;) {
            if (spool__core_latch_probe(latch)) {
                job = NULL;
                break;
            }
            job = spool__take(w, f, t);
            if (job != NULL)
                break;
            /* Jobs of other contexts below the region stay on w's deque
             * while it waits here: public, so that workers outside the
             * region can take them (isolate.md, X5). */
            spool__deque_t *d = &w->deque;
            if (d->owner_split < atomic_load_explicit(&d->bottom, memory_order_relaxed))
                spool__worker_publish(w);
            spool__worker_frames_share(w, true);
            spool__sleep_no_work_found_isolated(sleep, &idle, latch, region_has_work, &check);
        }
    }
    if (idle.ring != NULL)
        spool__trace_put(idle.ring, idle.ring_capacity, t0, spool__trace_now(), 0, 0,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_SEARCH, 0, 0, idle.ring->depth));
    return job;
}

/* ---- the loop ----------------------------------------------------------------- */

void spool__wait_until_cold(spool__worker_t *w, spool__core_latch_t *latch)
{
    spool__filter_t f = spool__filter_here(w, false);
    while (!spool__core_latch_probe(latch)) {
        /* While work keeps coming the worker stays active and leaves the
         * shared counters alone: touching them per job made two workers
         * fight over their cache line. */
        spool__taken_t t;
        spool__job_t *job = spool__take(w, f, &t);
        if (job == NULL) {
            job = search(w, f, latch, &t, false, NULL);
            if (job == NULL)
                return;
        }
        spool__run_taken(w, job, t);
    }
}

void spool__wait_recorded_cold(spool__worker_t *w, spool__core_latch_t *latch, void (*fn)(void *),
                               void *arg)
{
#if SPOOL__TRACE_ENABLED
    spool__trace_t *tr = spool__trace_current(&w->pool->trace);
    if (tr != NULL) {
        spool__trace_ring_t *ring = &tr->rings[w->index];
        unsigned depth = ring->depth++;
        uint64_t t0 = spool__trace_now();
        spool__wait_until_cold(w, latch);
        ring->depth = depth;
        spool__job_info_t info;
        spool__trace_describe_call(fn, arg, &info);
        spool__trace_put(ring, tr->capacity, t0, spool__trace_now(), info.fn, info.arg,
                         SPOOL__TRACE_INFO(SPOOL__TRACE_WAIT, 0, 0, depth));
        return;
    }
#else
    (void)fn;
    (void)arg;
#endif
    spool__wait_until_cold(w, latch);
}

/* After a lend that asked to linger: the worker watches its dock, pausing,
 * until a claim comes, its linger has passed since the lend's end, or work
 * is posted where only a search looks (lend.md, L6).  It stays counted
 * busy meanwhile: a poster wakes sleepers as if it ran a job. */
static void linger(spool__worker_t *w)
{
    uint64_t until = w->lend_end + w->linger;
    for (unsigned i = 1;; i++) {
        /* Relaxed: the loop's spool__dock_take reads the claim again with
         * acquire. */
        if (spool__dock_claimed(atomic_load_explicit(&w->dock, memory_order_relaxed)))
            return;
        if (i % 16 == 0 && (spool__ticks() >= until || spool__core_latch_probe(&w->terminate) ||
                            posted_work(w)))
            return;
        spool__spin_round(i);
    }
}

/* A claim was taken: the worker's next linger follows how soon it came
 * after the last lend's end, as a searcher's keep does (sleep.h). */
static void linger_learn(spool__worker_t *w)
{
    if (w->lend_end != 0)
        w->linger = spool__sleep_next_keep(w->linger, spool__ticks() - w->lend_end,
                                           w->pool->sleep.keep_max);
    w->lend_end = 0;
}

void spool__serve(spool__worker_t *w)
{
    spool__filter_t f = spool__filter_here(w, false);
    bool counted = true; /* a new worker is counted idle until it searches */
    while (!spool__core_latch_probe(&w->terminate)) {
        spool__taken_t t;
        spool__job_t *lent = NULL, *job = NULL;
        if (!counted && w->lend_end != 0 && w->linger != 0)
            linger(w);
        /* Its dock first: after a lend returns it may be claimed already
         * (lend.md, L3); while jobs keep coming it is BUSY. */
        if (!counted && (job = spool__dock_take(&w->dock)) != NULL)
            t = (spool__taken_t){SPOOL__FROM_LENT, false};
        else if (!counted && (job = spool__take(w, f, &t)) != NULL)
            lent = spool__dock_close(&w->dock);
        else if ((job = search(w, f, &w->terminate, &t, counted, &lent)) == NULL)
            return;
        counted = false;
        if (SPOOL__UNLIKELY(w->lend_end != 0)) {
            if (t.from == SPOOL__FROM_LENT)
                linger_learn(w);
            else
                w->lend_end = 0; /* a job between two claims: no gap to learn */
        }
        spool__run_taken(w, job, t);
        if (SPOOL__UNLIKELY(lent != NULL)) {
            linger_learn(w);
            spool__run_taken(w, lent, (spool__taken_t){SPOOL__FROM_LENT, false});
        }
    }
}

spool_yield_t spool__yield(spool__worker_t *w, bool local)
{
    spool__taken_t t;
    spool__job_t *job = spool__take(w, spool__filter_here(w, local), &t);
    if (job == NULL)
        return SPOOL_YIELD_IDLE;
    spool__run_taken(w, job, t);
    return SPOOL_YIELD_EXECUTED;
}

void spool__drain_local(spool__worker_t *w)
{
    spool__taken_t t;
    spool__job_t *job;
    while ((job = spool__take(w, spool__filter_here(w, true), &t)) != NULL)
        spool__run_taken(w, job, t);
}
