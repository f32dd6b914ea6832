/*
 * The part the deque's GenMC clients (chase_lev.c, split_deque.c,
 * push_alert.c, window.c and the scope and FIFO ones) share: the
 * deque built for GenMC with a 2-slot buffer (so a third push grows it),
 * JOBS jobs with a plain payload each, and take(), which checks a job's
 * payload and counts the take.
 */
#ifndef SPOOL_MODEL_DEQUE_CLIENT_H
#define SPOOL_MODEL_DEQUE_CLIENT_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPOOL__MODEL_CHECK 1
#define SPOOL__DEQUE_INITIAL_CAPACITY 2
#include "deque/deque.c"

int spool__test_deque_grow_fails(void)
{
    return 0;
}

#ifndef JOBS
#define JOBS 3
#endif
#ifndef THIEVES
#define THIEVES 2
#endif

typedef struct test_job {
    spool__job_t base; /* first: the deque carries &base */
    int payload;       /* plain, written before the push */
    atomic_int taken;
} test_job_t;

static test_job_t jobs[JOBS];
static spool__deque_t deque;

static void take(spool__job_t *job)
{
    test_job_t *j = (test_job_t *)job;
    assert(j->payload == (int)(j - jobs) + 1);
    atomic_fetch_add_explicit(&j->taken, 1, memory_order_relaxed);
}

/* Each client's thief step: one steal, and what it does with the job. */
static void try_steal(void);

/* The first thief tries twice, the second once (one try each misses a
 * steal of a job published on the first one's demand; two each took GenMC
 * minutes).  Written out: GenMC 0.11 fails an internal assertion on a loop
 * here.  Start the first with a non-NULL arg. */
static void *thief(void *arg)
{
    try_steal();
    if (arg != NULL)
        try_steal();
    return NULL;
}

/* At the end: every job was taken exactly once. */
static void check_each_taken_once(void)
{
    for (int i = 0; i < JOBS; i++)
        assert(atomic_load_explicit(&jobs[i].taken, memory_order_relaxed) == 1);
}

/* Rule 1 (deque.md), once the thieves are joined: with
 * the public part empty and private jobs left, the alert is up. */
static inline void check_alert_rule(void)
{
    int64_t top = atomic_load_explicit(&deque.top, memory_order_relaxed);
    int64_t split = atomic_load_explicit(&deque.split, memory_order_relaxed);
    int64_t bottom = atomic_load_explicit(&deque.bottom, memory_order_relaxed);
    if (top >= split && bottom > split)
        assert(atomic_load_explicit(&deque.limit, memory_order_relaxed) == SPOOL__DEQUE_ALERT);
}

#ifdef DEQUE_CLIENT_OWNER
/* The owner's side as join does it: the fast private push and pop, else the
 * slow ones (spool__worker_push and spool__worker_pop without the sleep
 * module); client_publish is the client's publication. */
static void client_publish(void);

/* Publication as spool__worker_publish does it: each private job is shown
 * to the client's visit (count it, close it) before the release store of
 * split. */
static void publish_visiting(void (*visit)(spool__job_t *job))
{
    bool was_empty;
    int64_t end = atomic_load_explicit(&deque.bottom, memory_order_relaxed);
    for (int64_t i = atomic_load_explicit(&deque.split, memory_order_relaxed); i < end; i++)
        visit(spool__deque_private_job(&deque, i));
    (void)spool__deque_publish(&deque, &was_empty);
}

static void owner_push(spool__job_t *job)
{
    if (spool__deque_push_private(&deque, job))
        return;
    assert(spool__deque_push(&deque, job));
    if (spool__deque_wants_publish(&deque))
        client_publish();
}

static spool__job_t *owner_pop(void)
{
    spool__job_t *job = spool__deque_pop_private(&deque);
    if (job != NULL)
        return job;
    job = spool__deque_pop(&deque);
    if (spool__deque_demanded(&deque))
        client_publish();
    return job;
}
#endif

#ifdef DEQUE_CLIENT_PLAIN
/* The plain thief step and publication (split_deque.c, push_alert.c): one
 * steal, the job taken; publication with nothing to count or close. */
static void try_steal(void)
{
    spool__job_t *job;
    if (spool__deque_steal(&deque, &job) == SPOOL__STEAL_SUCCESS)
        take(job);
}

static void client_publish(void)
{
    bool was_empty;
    (void)spool__deque_publish(&deque, &was_empty);
}
#endif

#endif
