/*
 * GenMC client for the frame deque of typed tasks (src/frames/frames.h,
 * frames.md), under RC11 and IMM: the owner's spawns and syncs with
 * spool_typed.h's fast tests and frames.h's slow paths, two thieves that
 * steal (and ask), and a thief's run as scheduler/frame_jobs.c does it: read
 * the frame, write the result in its place, set the cell's latch.
 *
 * Phase 1, racing two thieves that try once each: J0 spawned (public:
 * rule 1, nothing public yet), J1 spawned, J1 synced, J2 spawned into J1's
 * cell, J2 synced, J0 synced.  A sync that finds its frame stolen waits for
 * the latch, reads the result and frees the cell, which J2 then reuses.
 * Phase 2, alone: J3 is spawned after the public part emptied, and must be
 * public at once (rule 1), then synced.  Checked: every frame run exactly
 * once with its own argument, every stolen frame's result read, F3 (asked
 * set only with an ask in floor), and GenMC's own race detection on the
 * plain frame and result words.
 *
 * Mutants (model/genmc/mutants), each must be rejected:
 *   frames-publish-relaxed    the publication's add without release
 *   frames-steal-relaxed      the thief's CAS without acquire
 *   frames-latch-relaxed      the thief's set without release
 *   frames-retract-blind      the owner's retract an exchange, blind to thieves
 *   frames-sync-slack         the sync's fast test a cell too low
 *   frames-serve-relaxed      the serve's exchange of floor without acquire
 *   frames-ask-relaxed        the ask's exchange of floor without release
 *   frames-clear-asked-first  asked cleared before the exchange
 *   frames-no-retract-alert   no alert when a retract empties the public part
 *   frames-no-reset-alert     no alert after a stolen frame's wait
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* GenMC's pthread.h has no condition variables, which latch.h's lock
 * latch holds (the core latch, used here, needs none). */
typedef struct {
    int unused;
} pthread_cond_t;

#define SPOOL__MODEL_CHECK 1
#include "frames/frames.h"
#include "sleep/latch.h"

void __VERIFIER_assume(bool);

#define JOBS 4
#define CELLS 3
/* Two thieves that try once each (the quick bound: one). */
#ifndef THIEVES
#define THIEVES 2
#endif

static union {
    spool__frames_t d;
    char bytes[SPOOL__FRAMES_HEADER_BYTES + CELLS * sizeof(struct spool__cell_v4)];
} mem __attribute__((aligned(64)));
#define D (&mem.d)

/* A frame: the header, its argument (plain), its result in its place. */
typedef struct model_frame {
    struct spool__frame_hdr_v4 hdr;
    int word;
} model_frame_t;

static atomic_int ran[JOBS];
static atomic_int thief_runs;
static int results_read; /* by the owner, of stolen frames */

static void entry(struct spool__frame_hdr_v4 *frame, struct spool__cell_v4 *head)
{
    (void)frame;
    (void)head;
}

static int64_t head;

static model_frame_t *frame_at(int64_t i)
{
    return (model_frame_t *)(void *)spool__frames_cell(D, i);
}

static void run(int id, int arg)
{
    assert(arg == id + 1);
    atomic_fetch_add_explicit(&ran[id], 1, memory_order_relaxed);
}

/* spool_typed.h's spawn, and spool__frames_spawn_slow_v4. */
static void spawn(int id)
{
    struct spool__cell_v4 *c = spool__frames_cell(D, head);
    model_frame_t *f = (model_frame_t *)(void *)c;
    f->hdr.steal = entry;
    f->word = id + 1;
    head++;
    if (!spool__frames_spawn_fast(D, c)) {
        bool was_empty;
        (void)spool__frames_spawned_slow(D, head - 1, &was_empty);
    }
}

/* spool_typed.h's sync, and spool__frames_sync_slow_v4 (the wait: the
 * latch's acquire probe until it is set). */
static void sync_frame(int id)
{
    head--;
    struct spool__cell_v4 *c = spool__frames_cell(D, head);
    model_frame_t *f = (model_frame_t *)(void *)c;
    if (spool__frames_sync_fast(D, c)) {
        f->hdr.steal = NULL;
        run(id, f->word);
        return;
    }
    int64_t n;
    bool was_empty;
    if (spool__frames_popped_slow(D, head, &n, &was_empty) == SPOOL__FRAMES_MINE) {
        f->hdr.steal = NULL;
        run(id, f->word);
        return;
    }
    __VERIFIER_assume(spool__core_latch_probe((spool__core_latch_t *)(void *)spool__frames_state(c)));
    assert(f->word == (id + 1) * 10);
    results_read++;
    spool__frames_stolen_done(D, head);
}

/* A thief's take and run (scheduler/frame_jobs.c's frame_execute). */
static void try_steal(void)
{
    int64_t i;
    if (spool__frames_steal(D, &i, NULL, NULL) != SPOOL__FRAMES_TAKEN)
        return;
    model_frame_t *f = frame_at(i);
    assert(f->hdr.steal == entry);
    int arg = f->word;
    assert(arg >= 1 && arg <= JOBS);
    run(arg - 1, arg);
    f->word = arg * 10;
    atomic_fetch_add_explicit(&thief_runs, 1, memory_order_relaxed);
    (void)spool__core_latch_set((spool__core_latch_t *)(void *)spool__frames_state(
        spool__frames_cell(D, i)));
}

static void *thief(void *arg)
{
    (void)arg;
    try_steal();
    return NULL;
}

int main(void)
{
    spool__frames_init(D, NULL, true);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, thief, NULL);
    if (THIEVES > 1)
        pthread_create(&t2, NULL, thief, NULL);
    spawn(0);
    spawn(1);
    sync_frame(1);
    spawn(2);
    sync_frame(2);
    sync_frame(0);
    pthread_join(t1, NULL);
    if (THIEVES > 1)
        pthread_join(t2, NULL);

    /* F3: asked is set only while an ask is in floor. */
    if (atomic_load_explicit(&D->asked, memory_order_relaxed) != 0)
        assert(atomic_load_explicit(&D->floor, memory_order_relaxed) == SPOOL__FRAMES_ASKED_FLOOR);
    /* Rule 1: with no public cell, the next spawn publishes. */
    spawn(3);
    uint64_t ts = atomic_load_explicit(&D->ts, memory_order_relaxed);
    assert(spool__frames_tail(ts) == 0 && spool__frames_split(ts) == 1);
    sync_frame(3);

    for (int id = 0; id < JOBS; id++)
        assert(atomic_load_explicit(&ran[id], memory_order_relaxed) == 1);
    assert(results_read == atomic_load_explicit(&thief_runs, memory_order_relaxed));
    assert(head == 0);
    return 0;
}
