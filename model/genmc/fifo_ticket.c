/*
 * GenMC client for FIFO tickets (src/scheduler/job_fifo.c, fifo.md),
 * under RC11 and IMM, on the real split deque and the real FIFO queue
 * (src/queue/fifo_queue.h, with segments of 1 and 2 slots here).  The owner
 * (main) makes JOBS (3) FIFO spawns as spool__worker_push_fifo does: the
 * call (a job's address as its argument) pushed on the FIFO, then a
 * reference added to the open ticket (plain) while that ticket is the
 * deque's newest job, not full (CAP 2 here) and no thief asked, else a new
 * ticket pushed as join pushes (rule 1 can publish it at once).  Publishing
 * closes the open ticket before the release store of split.  The owner pops
 * its tickets and spends them one reference at a time (the rest pushed back
 * first); one thief steals twice and spends every reference of the ticket it
 * got, which must be closed, in batches (one claim for every reference
 * left), dropping their counts with one decrement at the end (job_fifo.c's
 * spool__fifo_ticket_execute with the scope's counted_done).  Each reference takes the FIFO's front call
 * (a lost race is left out: it is the same try again), checks its
 * plain payload and counts the take; at the end every job was taken exactly
 * once.  The ticket lines are this file's copy of job_fifo.c's (which needs
 * the whole pool); the deques are the real ones.
 *
 * The spawns are a FIFO scope's own worker's, so they are local (deque.md,
 * "Scope counts"): the scope's count starts at 1 (the body), a private
 * ticket's references are not counted (`local` says how many there are),
 * a private reference whose take loses the race publishes the owner's
 * private jobs before it takes again (job_fifo.c's private_execute),
 * and publishing a ticket counts its references (relaxed add, before the
 * release store of split).  A call run for a counted reference writes its
 * plain result, then drops a count (acq_rel); one run for a local reference
 * just writes its result.  The scope's end, once the owner's deque is
 * empty, is scope.c's: done at once if its acquire load finds only the
 * body's count, else it drops that and waits for zero; then it reads every
 * result before joining the thief (a race if a count was missing).
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   -DCLOSE_ON_PUBLISH=0  a published ticket stays open: the owner adds a
 *                         reference the thief may not see, counted as local
 *   -DCOUNT_ON_PUBLISH=0  publishing does not count a local ticket's
 *                         references: the end finds 1 while a thief runs
 *   -DDONE_ORDER=memory_order_relaxed  the thief's one decrement for the
 *                         calls it ran is relaxed: the end may read a
 *                         result before it is written
 */
#ifndef JOBS /* check.sh runs a smaller bound in its quick mode */
#define JOBS 3
#endif
#define THIEVES 1 /* it tries twice */
#define CAP 2     /* references per ticket */
#define DEQUE_CLIENT_OWNER 1
#include "deque_client.h"
#define SPOOL__FIFO_QUEUE_INITIAL_CAPACITY 1
#define SPOOL__FIFO_QUEUE_MAX_CAPACITY 2
#include "queue/fifo_queue.c"

#ifndef CLOSE_ON_PUBLISH
#define CLOSE_ON_PUBLISH 1
#endif
#ifndef COUNT_ON_PUBLISH
#define COUNT_ON_PUBLISH 1
#endif
#ifndef DONE_ORDER
#define DONE_ORDER memory_order_acq_rel
#endif

void __VERIFIER_assume(bool);

typedef struct ticket {
    spool__job_t base; /* first: the deque carries &base */
    int count;         /* plain: only the ticket's holder touches it */
} ticket_t;

static spool__fifo_queue_t fifo; /* the FIFO's queue: calls on jobs[] */
static ticket_t tickets[JOBS];
static int tickets_used;        /* owner only */
static ticket_t *open_ticket;   /* owner only */
static int64_t open_index;      /* owner only */
static atomic_int scope_count = 1; /* the scope's latch: 1 for the body */
static int local;                  /* owner only: local references */
static int result[JOBS];           /* plain, written by the call's runner */

static void private_execute(spool__job_t *job)
{
    (void)job;
}
static void published_execute(spool__job_t *job)
{
    (void)job;
}

static void call_fn(void)
{
}

/* One reference spent by thread who (0: the owner, 1: the thief): the
 * FIFO's front call.  The call is taken into a global: GenMC 0.11 took an
 * inlined local's end of lifetime for a free, and its next use for a use
 * after free. */
static spool__fifo_call_t taken_call[2];
static void check_taken_call(int who)
{
    assert(taken_call[who].fn == call_fn);
    take(taken_call[who].arg);
    result[(test_job_t *)taken_call[who].arg - jobs] = 1;
}

static void spend(int who)
{
    __VERIFIER_assume(spool__fifo_queue_try_take(&fifo, &taken_call[who]));
    check_taken_call(who);
}

/* A counted reference's call: its count dropped after its result.  Acq_rel
 * pairs with the end's acquire loads (the count latch's set). */
static void spend_counted(int who)
{
    spend(who);
    atomic_fetch_sub_explicit(&scope_count, 1, memory_order_acq_rel);
}

static void close_ticket(spool__job_t *job)
{
    ticket_t *t = (ticket_t *)job;
    if (t->base.execute == private_execute) {
        local -= t->count;
        if (COUNT_ON_PUBLISH)
            /* Relaxed: the publisher holds the body's count. */
            atomic_fetch_add_explicit(&scope_count, t->count, memory_order_relaxed);
        t->base.execute = published_execute;
        if (CLOSE_ON_PUBLISH && open_ticket == t)
            open_ticket = NULL;
    }
}

static void client_publish(void)
{
    publish_visiting(close_ticket);
}

static void fifo_spawn(int e)
{
    local++; /* before the push: a publication by it counts this one */
    ticket_t *t = open_ticket;
    if (t != NULL && t->count < CAP &&
        atomic_load_explicit(&deque.bottom, memory_order_relaxed) == open_index + 1) {
        assert(spool__fifo_queue_push(&fifo, call_fn, &jobs[e].base));
        t->count++;
        if (spool__deque_demanded(&deque))
            client_publish();
        return;
    }
    assert(spool__fifo_queue_push(&fifo, call_fn, &jobs[e].base));
    t = &tickets[tickets_used++];
    t->base.execute = private_execute;
    t->count = 1;
    open_ticket = t;
    open_index = atomic_load_explicit(&deque.bottom, memory_order_relaxed);
    owner_push(&t->base);
}

/* The owner's run of a ticket it popped: one reference, the rest pushed
 * back first (a published one too: to the FIFO it is all the same). */
static void owner_run(spool__job_t *job)
{
    ticket_t *t = (ticket_t *)job;
    bool counted = t->base.execute == published_execute;
    if (--t->count > 0)
        owner_push(job);
    else if (open_ticket == t)
        open_ticket = NULL;
    if (counted) {
        spend_counted(0);
    } else {
        local--;
        /* A private reference's take that loses the race to the thief
         * publishes the owner's private jobs first (job_fifo.c's
         * private_execute), then takes again. */
        if (!spool__fifo_queue_try_take(&fifo, &taken_call[0])) {
            client_publish();
            __VERIFIER_assume(spool__fifo_queue_try_take(&fifo, &taken_call[0]));
        }
        check_taken_call(0);
    }
}

static spool__fifo_call_t batch_calls[CAP]; /* a global: see taken_call */

static void try_steal(void)
{
    spool__job_t *job;
    if (spool__deque_steal(&deque, &job) != SPOOL__STEAL_SUCCESS)
        return;
    ticket_t *t = (ticket_t *)job;
    assert(t->base.execute == published_execute); /* never a private ticket */
    int done = 0;
    while (t->count > 0) {
        /* A batch: every reference left, with one claim on the FIFO's
         * front (spool__fifo_ticket_execute's batches at their largest);
         * fewer where the front's segment ends. */
        size_t k = spool__fifo_queue_try_take_n(&fifo, batch_calls, (size_t)t->count);
        __VERIFIER_assume(k > 0);
        t->count -= (int)k;
        for (size_t i = 0; i < k; i++) {
            assert(batch_calls[i].fn == call_fn);
            take(batch_calls[i].arg);
            result[(test_job_t *)batch_calls[i].arg - jobs] = 1;
        }
        done += (int)k;
    }
    /* One decrement for all (spool__count_latch_set_n).  Acq_rel pairs with
     * the other decrements and the end's acquire loads. */
    atomic_fetch_sub_explicit(&scope_count, done, DONE_ORDER);
}

int main(void)
{
    spool__deque_init(&deque);
    spool__fifo_queue_init(&fifo);
    pthread_t t[THIEVES];
    for (int i = 0; i < JOBS; i++)
        jobs[i].payload = i + 1;
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, i == 0 ? &t[i] : NULL);
    for (int i = 0; i < JOBS; i++)
        fifo_spawn(i);
    spool__job_t *job;
    while ((job = owner_pop()) != NULL)
        owner_run(job);
    assert(local == 0);
    /* The scope's end.  Acquire pairs with the last acq_rel decrement. */
    if (atomic_load_explicit(&scope_count, memory_order_acquire) != 1) {
        atomic_fetch_sub_explicit(&scope_count, 1, memory_order_acq_rel);
        __VERIFIER_assume(atomic_load_explicit(&scope_count, memory_order_acquire) == 0);
    }
    for (int i = 0; i < JOBS; i++)
        assert(result[i] == 1);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    check_each_taken_once();
    spool__fifo_queue_destroy(&fifo);
    return 0;
}
