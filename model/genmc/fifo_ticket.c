/*
 * GenMC client for FIFO tickets (src/job_fifo.c, deque.md "FIFO tickets"),
 * under RC11 and IMM, on the real split deque and a real FIFO queue (a
 * Chase-Lev deque pushed at the bottom by its worker, taken at the top by
 * everyone).  The owner (main) makes JOBS (3) FIFO spawns as
 * spool__worker_push_fifo does: the job pushed on the FIFO (release), then a
 * reference added to the open ticket (plain) while that ticket is the
 * deque's newest job, not full (CAP 2 here) and no thief asked, else a new
 * ticket pushed as join pushes (rule 1 can publish it at once).  Publishing
 * closes the open ticket before the release store of split.  The owner pops
 * its tickets and spends them one reference at a time (the rest pushed back
 * first); one thief steals twice and spends every reference of the ticket it
 * got, which must be closed.  Each reference takes the FIFO's front job,
 * which must be there (the take never finds the queue empty), checks its
 * plain payload and counts the take; at the end every job was taken exactly
 * once.  The ticket lines are this file's copy of job_fifo.c's (which needs
 * the whole pool); the deques are the real ones.
 *
 * Mutant (model/genmc/check.sh), which must be rejected:
 *   -DCLOSE_ON_PUBLISH=0  a published ticket stays open: the owner adds a
 *                         reference the thief may not see (a race on count)
 */
#define JOBS 3
#define THIEVES 1 /* it tries twice */
#define CAP 2     /* references per ticket */
#define DEQUE_CLIENT_OWNER 1
#include "deque_client.h"

#ifndef CLOSE_ON_PUBLISH
#define CLOSE_ON_PUBLISH 1
#endif

void __VERIFIER_assume(bool);

typedef struct ticket {
    spool__job_t base; /* first: the deque carries &base */
    int count;         /* plain: only the ticket's holder touches it */
} ticket_t;

static spool__deque_t fifo;     /* the FIFO's queue: jobs[] */
static ticket_t tickets[JOBS];
static int tickets_used;        /* owner only */
static ticket_t *open_ticket;   /* owner only */
static int64_t open_index;      /* owner only */

static void private_execute(spool__job_t *job)
{
    (void)job;
}
static void published_execute(spool__job_t *job)
{
    (void)job;
}

/* One reference spent: the FIFO's front job, which must be there. */
static void spend(void)
{
    spool__job_t *job = NULL;
    spool__steal_t r = spool__deque_take_front(&fifo, &job);
    __VERIFIER_assume(r != SPOOL__STEAL_RETRY); /* a lost race retries */
    assert(r == SPOOL__STEAL_SUCCESS);
    take(job);
}

static void close_ticket(spool__job_t *job)
{
    ticket_t *t = (ticket_t *)job;
    if (t->base.execute == private_execute) {
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
    ticket_t *t = open_ticket;
    if (t != NULL && t->count < CAP &&
        atomic_load_explicit(&deque.bottom, memory_order_relaxed) == open_index + 1) {
        assert(spool__deque_push_public(&fifo, &jobs[e].base));
        t->count++;
        if (spool__deque_demanded(&deque))
            client_publish();
        return;
    }
    assert(spool__deque_push_public(&fifo, &jobs[e].base));
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
    if (--t->count > 0)
        owner_push(job);
    else if (open_ticket == t)
        open_ticket = NULL;
    spend();
}

static void try_steal(void)
{
    spool__job_t *job;
    if (spool__deque_steal(&deque, &job) != SPOOL__STEAL_SUCCESS)
        return;
    ticket_t *t = (ticket_t *)job;
    assert(t->base.execute == published_execute); /* never a private ticket */
    while (t->count > 0) {
        t->count--;
        spend();
    }
}

int main(void)
{
    spool__deque_init(&deque);
    spool__deque_init(&fifo);
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
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    check_each_taken_once();
    return 0;
}
