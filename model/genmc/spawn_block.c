/*
 * GenMC client for spawn blocks (src/scope/scope.c, scope.md),
 * under RC11 and IMM, on the real split deque.  The owner (main) runs a
 * scope (count 1 for the body) and spawns JOBS (4) calls as the scope's
 * worker does: an entry appended (plain stores) to the open block while it
 * is the deque's newest job, not full (CAP 2 here) and no thief asked, else
 * a new local block pushed as join pushes (so a block of two entries can be
 * published by rule 1 when the next block is pushed).  Publishing counts all entries of each local block
 * it makes public at once, switches its execute function and closes it (no
 * more appends), before the release store of split.  The owner's pop of a
 * block takes its newest entry and pushes the rest back.  One thief steals
 * twice (raising demand when it finds nothing) and runs every entry of the
 * block it got, which must be counted; each entry drops one count.  (Two
 * thieves took GenMC minutes; the deque clients check thieves racing.)  The scope's end runs local entries
 * until none is left (the newest job, if it is a private local block by the
 * fast pop's and push's tests, run where it lies and popped with its last
 * entry, as scope.c's run_newest_entry_in_place does, which takes the open
 * block from the scope without reading the slot; else popped), drops
 * the body's count, runs what is left and waits for zero.  Each entry checks its plain payload and writes a plain result;
 * at the end each ran exactly once and every result is read after the count
 * reached zero.  The spawn and block lines are this file's copy of scope.c's
 * (scope.c needs the whole pool); the deque is the real one.  A thief here
 * runs all of a block's entries, as scope.c's does while nobody asks it for
 * work: handing the rest on is a deque push, which the other clients check.
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   -DCOUNT_ALL_ON_PUBLISH=0  publishing counts a block as one entry
 *   -DCLOSE_ON_PUBLISH=0      a published block stays open for appends
 *   -DDONE_ORDER=memory_order_relaxed  the thief's decrement for its entries
 *   -DIN_PLACE_KEEP_EMPTY=1   the end's in-place step leaves a block on
 *                             the deque after its last entry: it is held
 *                             (popped or stolen) again with no entry left
 * The in-place step's floor and limit tests are not for safety: with local
 * entries left the newest job is private (a publication makes every job
 * public and leaves local at 0 for this scope), and only the owner
 * publishes; they keep a demand and an alert going the slow way (served at
 * once), so a mutant without them passes here, as it should.
 */
#ifndef JOBS /* check.sh runs a smaller bound in its quick mode */
#define JOBS 4    /* the entries: jobs[i] is entry i's payload and take count */
#endif
#define THIEVES 1 /* it tries twice */
#define CAP 2     /* entries per block */
#define DEQUE_CLIENT_OWNER 1
#include "deque_client.h"

#ifndef COUNT_ALL_ON_PUBLISH
#define COUNT_ALL_ON_PUBLISH 1
#endif
#ifndef CLOSE_ON_PUBLISH
#define CLOSE_ON_PUBLISH 1
#endif
#ifndef DONE_ORDER
#define DONE_ORDER memory_order_acq_rel
#endif
#ifndef IN_PLACE_KEEP_EMPTY
#define IN_PLACE_KEEP_EMPTY 0
#endif

void __VERIFIER_assume(bool);

typedef struct block {
    spool__job_t base; /* first: the deque carries &base */
    int count;         /* plain: only the block's holder touches it */
    int entry[CAP];
} block_t;

static block_t blocks[JOBS];
static int blocks_used;       /* owner only */
static block_t *open_block;   /* owner only */
static int64_t open_index;    /* owner only */
static int local;             /* owner only */
static atomic_int count = 1;  /* the scope's latch count: 1 for the body */
static int result[JOBS];      /* plain, written by whoever runs the entry */

static void local_execute(spool__job_t *job)
{
    (void)job;
}
static void counted_execute(spool__job_t *job)
{
    (void)job;
}

static void run_entry(int e)
{
    take(&jobs[e].base);
    result[e] = 1;
}

static void count_block(spool__job_t *job)
{
    block_t *b = (block_t *)job;
    if (b->base.execute == local_execute) {
        local -= b->count;
        atomic_fetch_add_explicit(&count, COUNT_ALL_ON_PUBLISH ? b->count : 1,
                                  memory_order_relaxed);
        b->base.execute = counted_execute;
        if (CLOSE_ON_PUBLISH && open_block == b)
            open_block = NULL;
    }
}

static void client_publish(void)
{
    publish_visiting(count_block);
}

static void spawn(int e)
{
    block_t *b = open_block;
    if (b != NULL && b->count < CAP &&
        atomic_load_explicit(&deque.bottom, memory_order_relaxed) == open_index + 1) {
        if (!spool__deque_demanded(&deque)) {
            b->entry[b->count++] = e;
            local++;
            return;
        }
        client_publish();
    }
    b = &blocks[blocks_used++];
    b->base.execute = local_execute;
    b->count = 1;
    b->entry[0] = e;
    local++;
    open_block = b;
    open_index = atomic_load_explicit(&deque.bottom, memory_order_relaxed);
    owner_push(&b->base);
}

/* The owner's run of a block it popped: the newest entry, the rest pushed
 * back first. */
static void owner_run(spool__job_t *job)
{
    block_t *b = (block_t *)job;
    bool counted = b->base.execute == counted_execute;
    assert(b->count > 0); /* a held block has an entry left */
    int e = b->entry[--b->count];
    if (!counted)
        local--;
    if (b->count > 0)
        owner_push(job);
    else if (open_block == b)
        open_block = NULL;
    run_entry(e);
    if (counted)
        atomic_fetch_sub_explicit(&count, 1, memory_order_acq_rel);
}

/* The scope's end's step (scope.c's run_newest_entry_in_place, on the real
 * deque's spool__deque_newest_private(_at) and spool__deque_drop_newest): the
 * newest job, if the fast pop's and push's tests pass and it is a local
 * block, has its newest entry run where it lies, the block popped with its
 * last entry.  False, with nothing done, otherwise. */
static bool owner_run_in_place(void)
{
    /* The open block first, known to lie at open_index while set (checked
     * here), else the newest job if it is a local block. */
    int64_t newest = open_index;
    block_t *b = open_block;
    if (b == NULL || !spool__deque_newest_private_at(&deque, newest)) {
        if (!spool__deque_newest_private(&deque, &newest))
            return false;
        b = (block_t *)spool__deque_window_job(&deque, newest);
        if (b->base.execute != local_execute)
            return false;
    } else {
        assert((block_t *)spool__deque_window_job(&deque, newest) == b);
    }
    assert(b->count > 0); /* a held block has an entry left */
    int e = b->entry[--b->count];
    local--;
    if (b->count == 0 && !IN_PLACE_KEEP_EMPTY) {
        spool__deque_drop_newest(&deque, newest);
        if (open_block == b)
            open_block = NULL;
    }
    run_entry(e);
    return true;
}

static void try_steal(void)
{
    spool__job_t *job;
    if (spool__deque_steal(&deque, &job) != SPOOL__STEAL_SUCCESS)
        return;
    block_t *b = (block_t *)job;
    assert(b->base.execute == counted_execute); /* never a local block */
    int done = 0;
    while (b->count > 0) {
        run_entry(b->entry[--b->count]);
        done++;
    }
    /* One decrement for all (scope.c's spool__count_latch_set_n).  Acq_rel
     * pairs with the other decrements and the owner's acquire load below. */
    atomic_fetch_sub_explicit(&count, done, DONE_ORDER);
}

int main(void)
{
    spool__deque_init(&deque);
    pthread_t t[THIEVES];
    for (int i = 0; i < JOBS; i++)
        jobs[i].payload = i + 1;
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, i == 0 ? &t[i] : NULL);
    for (int i = 0; i < JOBS; i++)
        spawn(i);
    while (local > 0) {
        if (owner_run_in_place())
            continue;
        spool__job_t *job = owner_pop();
        assert(job != NULL);
        owner_run(job);
    }
    atomic_fetch_sub_explicit(&count, 1, memory_order_acq_rel);
    spool__job_t *job;
    while ((job = owner_pop()) != NULL)
        owner_run(job);
    /* Acquire pairs with the decrements: zero only once every entry ran. */
    __VERIFIER_assume(atomic_load_explicit(&count, memory_order_acquire) == 0);
    for (int i = 0; i < JOBS; i++)
        assert(result[i] == 1);
    check_each_taken_once();
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    return 0;
}
