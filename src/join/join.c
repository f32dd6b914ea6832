/* spool_join: fork b for thieves, run a, then take b back or wait for it. */
#include <stddef.h>

#include "job/abi_v3.h"
#include "pool/global.h"
#include "scheduler/worker.h"

#if defined(__GNUC__)
#define JOIN_INLINE inline __attribute__((always_inline))
#define JOIN_COLD __attribute__((noinline, cold))
#else
#define JOIN_INLINE inline
#define JOIN_COLD
#endif

/* b's job.  Its latch names no owner: only a thief can find the owner
 * asleep on it (an owner running its own b is awake), and a thief took b
 * from its owner's deque, which its steal recorded (stolen_from). */
typedef struct join_job {
    spool__job_t base;
    spool_fn fn;
    void *arg;
    spool__core_latch_t latch;
} join_job_t;

/* spool_join_inline and spool_fork_inline (spool_inline.h) build b's job in
 * their caller's frame and push it themselves: their view of the job, of
 * the deque and of spool_fork_t must be ours.  A change to any of these
 * layouts gives every name of spool_inline.h the next SPOOL_INLINE_ABI. */
_Static_assert(sizeof(join_job_t) == sizeof(struct spool__join_frame_v4), "join frame v4");
_Static_assert(offsetof(join_job_t, base.execute) == offsetof(struct spool__join_frame_v4, execute),
               "join frame v4: execute");
_Static_assert(offsetof(join_job_t, fn) == offsetof(struct spool__join_frame_v4, fn),
               "join frame v4: fn");
_Static_assert(offsetof(join_job_t, arg) == offsetof(struct spool__join_frame_v4, arg),
               "join frame v4: arg");
_Static_assert(offsetof(join_job_t, latch) == offsetof(struct spool__join_frame_v4, latch) &&
                   sizeof(spool__core_latch_t) == sizeof(int) && SPOOL__LATCH_UNSET == 0,
               "join frame v4: latch");
_Static_assert(SPOOL_INLINE_ABI == 4 &&
                   sizeof(spool_fork_t) == sizeof(struct spool__join_frame_v4) + sizeof(int64_t) &&
                   offsetof(spool_fork_t, spool__index) == sizeof(struct spool__join_frame_v4),
               "spool_fork_t changed: give spool_inline.h's names the next SPOOL_INLINE_ABI");
/* Inline ABI 3's frames are ABI 4's (job/abi_v3.h). */
_Static_assert(sizeof(struct spool__join_frame_v3) == sizeof(struct spool__join_frame_v4) &&
                   offsetof(struct spool__join_frame_v3, latch) ==
                       offsetof(struct spool__join_frame_v4, latch),
               "join frame v3");
/* b run by a thief; exported, as spool_join_inline's b names it too. */
void spool__join_execute_v4(spool__job_t *job)
{
    join_job_t *j = (join_job_t *)job;
    /* Read before fn, whose own steals overwrite it.  Stale when the owner
     * runs b itself, and then never used: the set cannot find it asleep. */
    spool__worker_t *owner = spool__current_worker()->stolen_from;
    j->fn(j->arg);
    /* The owner's pool is ours (a thief steals within its pool), alive
     * while we run, so owner may be read after the set. */
    if (spool__core_latch_set(&j->latch))
        spool__sleep_notify_worker_latch_is_set(&owner->pool->sleep, owner->index);
}

static void join_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const join_job_t *j = (const join_job_t *)job;
    spool__trace_describe_call(j->fn, j->arg, info);
}

/* b of a join: on its maker's stack, its context its deque position's. */
static const spool__job_kind_t kind_join = {
    .name = "join", .execute = spool__join_execute_v4, .describe = join_describe};
SPOOL__JOB_KIND_ROW(kind_join);

/* The same, made by a program built against inline ABI 3 (job/abi_v3.h). */
static const spool__job_kind_t kind_join_v3 = {
    .name = "join", .execute = spool__join_execute_v3, .describe = join_describe};
SPOOL__JOB_KIND_ROW(kind_join_v3);

/* a has returned and the first pop did not give b back: b was stolen, or a
 * left jobs of its own (a task made ready, the rest of a spawn block) above
 * it, or a wait inside a took b itself (a wait takes its own older jobs,
 * wait.md) and b has run.  job: what the fast pop gave, NULL if it popped
 * nothing (not a private job, or a thief asked). */
static JOIN_COLD void join_finish(spool__worker_t *w, join_job_t *job_b, spool__job_t *job)
{
    spool__filter_t f = spool__filter_here(w, false);
    spool__taken_t t;
    /* The fast pop took a private job: it lay at the new bottom. */
    if (job != NULL && job != &job_b->base &&
        !spool__take_popped(w, f, job, atomic_load_explicit(&w->deque.bottom, memory_order_relaxed),
                            &t))
        job = NULL; /* older than b, not for this filter: left there */
    else if (job == NULL)
        job = spool__take_own(w, f, &t);
    for (;;) {
        if (job == NULL) {
            /* b was stolen (or has run, and the next job is not for us):
             * work on other jobs until its thief is done. */
            spool__wait_recorded(w, &job_b->latch, job_b->fn, job_b->arg);
            return;
        }
        if (job == &job_b->base) {
            SPOOL__STAT_INC(w->stats.jobs_executed);
            job_b->fn(job_b->arg); /* not stolen: run inline, no latch needed */
            return;
        }
        /* While b is pending (under job, or stolen: then everything older
         * went first), job lies above b: a left it, and it is the code's
         * own.  Once b has run, job is older than b, of the code that waits
         * for ours: taken as a wait here takes it, in its own context
         * (wait.md). */
        SPOOL__STAT_INC(w->stats.jobs_executed);
        spool__run_taken(w, job, t);
        if (spool__core_latch_probe(&job_b->latch))
            return;
        job = spool__take_own(w, f, &t);
    }
}

/* The fast push could not be done (the buffer must grow, or b is to be
 * public): the whole join the slow way. */
static JOIN_COLD void join_slow(spool__worker_t *w, join_job_t *job_b, spool_fn a, void *arg_a)
{
    if (!spool__worker_push(w, &job_b->base)) {
        /* Out of memory for the deque: no parallelism, nothing lost. */
        a(arg_a);
        job_b->fn(job_b->arg);
        return;
    }
    a(arg_a);
    join_finish(w, job_b, NULL);
}

/* The whole fast path is here, in the caller's frame: push b, run a, pop b,
 * run b, as spool_join_inline does it (spool__join_fork_v4).  Anything else
 * leaves through a cold function that finishes the join.  No test for a
 * caller outside any pool: its deque is a stand-in that no push fits in,
 * and spool__join_slow_v4 sends it to join_cold. */
static JOIN_INLINE void join_fork(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    struct spool__join_frame_v4 frame;
    if (SPOOL__LIKELY(spool__join_fork_v4(spool__tls_fork_v4, &frame, a, arg_a, b, arg_b, 1))) {
        SPOOL__STAT_INC(spool__current_worker()->stats.jobs_executed);
        frame.fn(frame.arg);
    }
}

typedef struct join_args {
    spool_fn a, b;
    void *arg_a, *arg_b;
} join_args_t;

static void join_in_worker(void *arg)
{
    join_args_t *j = arg;
    join_fork(j->a, j->arg_a, j->b, j->arg_b);
}

static JOIN_COLD void join_null(void)
{
    spool__abort("spool_join: NULL function");
}

/* A caller outside any pool. */
static JOIN_COLD void join_cold(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    if (a == NULL || b == NULL)
        join_null();
    join_args_t args = {.a = a, .b = b, .arg_a = arg_a, .arg_b = arg_b};
    spool_pool_t *global = spool__global_pool();
    if (global == NULL || spool__pool_run_root(global, join_in_worker, &args) != 0) {
        /* No pool to run in: the caller does the work itself. */
        a(arg_a);
        b(arg_b);
    }
}

void spool__join_slow_v4(struct spool__join_frame_v4 *b, spool_fn a, void *arg_a)
{
    spool__worker_t *w = spool__current_worker();
    if (w == NULL) /* outside any pool (spool__tls_fork_v4's stand-in) */
        join_cold(a, arg_a, b->fn, b->arg);
    else
        join_slow(w, (join_job_t *)(void *)b, a, arg_a);
}

void spool__join_finish_v4(struct spool__join_frame_v4 *b, spool__job_t *popped)
{
    join_finish(spool__current_worker(), (join_job_t *)(void *)b, popped);
}

void spool__fork_slow_v4(struct spool__join_frame_v4 *b)
{
    if (SPOOL__UNLIKELY(b->fn == NULL))
        spool__abort("spool_fork_inline: NULL function");
    spool__worker_t *w = spool__current_worker();
    /* Outside any pool, or no room for b (the deque could not grow): b
     * stays the caller's, which its sync tells by the NULL. */
    if (w == NULL || !spool__worker_push(w, (spool__job_t *)(void *)b))
        b->execute = NULL;
}

int spool__sync_finish_v4(struct spool__join_frame_v4 *b)
{
    if (b->execute == NULL)
        return 1; /* the fork pushed nothing: b is the caller's */
    join_finish(spool__current_worker(), (join_job_t *)(void *)b, NULL);
    return 0;
}

void spool_join(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    /* Apart, so that each is one test and branch, not a flag or-ed into
     * the others'. */
    if (SPOOL__UNLIKELY(a == NULL))
        join_null();
    if (SPOOL__UNLIKELY(b == NULL))
        join_null();
    join_fork(a, arg_a, b, arg_b);
}

/* ---- inline ABI 3 (job/abi_v3.h): programs built against spool 0.6 ---------- */

void spool__join_execute_v3(spool__job_t *job)
{
    spool__join_execute_v4(job);
}

void spool__fork_slow_v3(struct spool__join_frame_v3 *b)
{
    spool__fork_slow_v4((struct spool__join_frame_v4 *)(void *)b);
}

int spool__sync_finish_v3(struct spool__join_frame_v3 *b)
{
    return spool__sync_finish_v4((struct spool__join_frame_v4 *)(void *)b);
}

void spool__join_slow_v3(struct spool__join_frame_v3 *b, spool_fn a, void *arg_a)
{
    spool__join_slow_v4((struct spool__join_frame_v4 *)(void *)b, a, arg_a);
}

void spool__join_finish_v3(struct spool__join_frame_v3 *b, spool__job_t *popped)
{
    spool__join_finish_v4((struct spool__join_frame_v4 *)(void *)b, popped);
}
