/* A worker's typed frames (frame_jobs.h; frames/frames.md): its frame
 * deque, the frame job a thief runs, stealing and publishing frames. */
#include "scheduler/frame_jobs.h"

#include <stdint.h>

#include "scheduler/worker.h"

spool__frames_t *spool__worker_frames(spool__worker_t *w)
{
    spool__frames_t *d = atomic_load_explicit(&w->frames, memory_order_relaxed);
    if (SPOOL__LIKELY(d != NULL))
        return d;
    d = spool__frames_create(w, w->pool->num_slots > 1);
    if (d == NULL)
        spool__abort("typed tasks: no memory for a worker's frame deque");
    /* Release pairs with the thieves' acquire load of frames: a thief that
     * finds the deque finds its words set. */
    atomic_store_explicit(&w->frames, d, memory_order_release);
    return d;
}

void spool__worker_run_frame(spool__worker_t *w, struct spool__frame_hdr_v4 *frame,
                             spool__context_t x)
{
    spool__frames_t *d = spool__worker_frames(w);
    int64_t head = spool__frames_head(d);
    /* The frames its code spawns, from head on, are of context x (a
     * thief's lookup, frames.md F7). */
    bool entered = spool__ctx_enter(&w->frame_ctx, head, x);
    frame->steal(frame, spool__frames_cell(d, head));
    if (entered)
        spool__ctx_pop(&w->frame_ctx, INT64_MAX); /* no cover: own frames are never taken */
}

/* v's frame deque, for another thread (NULL until v's first typed spawn).
 * Acquire pairs with the release store in spool__worker_frames: a thief
 * that finds the deque finds its words set. */
static spool__frames_t *victim_frames(const spool__worker_t *v)
{
    return atomic_load_explicit(&v->frames, memory_order_acquire);
}

/* A stolen frame, run by its thief (the calling worker). */
static void frame_execute(spool__job_t *job)
{
    /* Read before the frame runs: a steal inside it reuses the job. */
    const spool__frame_job_t *fj = (const spool__frame_job_t *)job;
    struct spool__cell_v4 *cell = fj->cell;
    unsigned victim = fj->victim;
    spool__context_t x = fj->ctx;
    spool__worker_t *w = spool__current_worker();
    /* The owner's pool is ours (a thief steals within its pool), alive
     * while we run: read before the set, which may let the owner return. */
    spool__sleep_t *sleep = &w->pool->sleep;
    spool__worker_run_frame(w, &cell->hdr, x);
    /* The core latch's set (latch.h): its release pairs with the owner's
     * acquire probe, so that the owner reads the result the run wrote. */
    if (spool__core_latch_set((spool__core_latch_t *)(void *)spool__frames_state(cell)))
        spool__sleep_notify_worker_latch_is_set(sleep, victim);
}
_Static_assert(sizeof(spool__core_latch_t) == sizeof(int) && SPOOL__LATCH_UNSET == 0,
               "a cell's state word is a core latch");

static spool__context_t frame_label(const spool__job_t *job)
{
    return ((const spool__frame_job_t *)job)->ctx;
}

static void frame_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const spool__frame_job_t *fj = (const spool__frame_job_t *)job;
    info->fn = spool__fn_bits((void (*)(void))fj->cell->hdr.steal);
    info->arg = (uint64_t)(uintptr_t)fj->cell;
}

/* A typed spawn its thief took: on its owner's frame deque, its context
 * the frame context entry covering its index. */
static const spool__job_kind_t kind_frame = {.name = "typed frame",
                                             .execute = frame_execute,
                                             .label = frame_label,
                                             .describe = frame_describe};
SPOOL__JOB_KIND_ROW(kind_frame);

/* Is a frame of a region's code among w's? */
static bool frames_regional(const spool__worker_t *w)
{
    const spool__ctx_stack_t *c = &w->frame_ctx;
    unsigned depth = atomic_load_explicit(&c->depth, memory_order_relaxed);
    const spool__ctx_array_t *a = atomic_load_explicit(&c->array, memory_order_relaxed);
    for (unsigned k = 1; k < depth; k++)
        if (atomic_load_explicit(&a->entries[k].region, memory_order_relaxed) != 0)
            return true;
    return false;
}

void spool__worker_frames_posted(spool__worker_t *w, int64_t n, bool was_empty)
{
    spool__worker_posted(w, n, was_empty, frames_regional(w));
}

void spool__worker_frames_share(spool__worker_t *w, bool always)
{
    spool__frames_t *d = atomic_load_explicit(&w->frames, memory_order_relaxed);
    if (d == NULL)
        return;
    if (!always && !spool__frames_asked(d))
        return;
    /* Nothing private: an ask stays up, for the next spawn or sync (served
     * now, its thief would ask again at once, and an idle worker's deque
     * would bounce between the two). */
    int64_t head = spool__frames_head(d);
    if (head <= d->osplit)
        return;
    bool was_empty;
    int64_t n = spool__frames_serve(d, head, &was_empty);
    if (n > 0)
        spool__worker_frames_posted(w, n, was_empty);
}

/* An isolated thief's test of a frame at index t of a victim: of its
 * region? */
typedef struct frame_region {
    const spool__worker_t *victim;
    uint64_t region;
} frame_region_t;

static bool frame_of_region(const void *arg, int64_t t)
{
    const frame_region_t *r = arg;
    return spool__ctx_lookup(&r->victim->frame_ctx, t).region == r->region;
}

spool__job_t *spool__worker_steal_frame(spool__worker_t *w, spool__worker_t *v, unsigned victim,
                                        uint64_t region, spool__taken_t *t, bool *retry)
{
    spool__frames_t *d = victim_frames(v);
    if (d == NULL)
        return NULL;
    int64_t i;
    frame_region_t of = {v, region};
    spool__frames_steal_t r = spool__frames_steal(d, &i, region != 0 ? frame_of_region : NULL, &of);
    if (r != SPOOL__FRAMES_TAKEN) {
        *retry |= r == SPOOL__FRAMES_RETRY;
        return NULL;
    }
    spool__frame_job_t *fj = &w->frame_job;
    fj->base.execute = frame_execute;
    fj->cell = spool__frames_cell(d, i);
    fj->victim = victim;
    /* Exact: the entries covering a frame stay while it is outstanding. */
    fj->ctx = spool__ctx_lookup(&v->frame_ctx, i);
    t->from = SPOOL__FROM_STOLEN | victim << 8;
    return &fj->base;
}

bool spool__worker_frames_pending(spool__worker_t *w)
{
    spool__frames_t *d = atomic_load_explicit(&w->frames, memory_order_relaxed);
    if (d == NULL)
        return false;
    /* Cells below tail were taken; a cell a sync waits for is one of them. */
    uint64_t ts = atomic_load_explicit(&d->ts, memory_order_relaxed);
    return spool__frames_head(d) > spool__frames_tail(ts);
}

bool spool__worker_frames_public(spool__worker_t *v)
{
    spool__frames_t *d = victim_frames(v);
    int64_t t;
    return d != NULL && spool__frames_peek(d, &t);
}

bool spool__worker_frames_of_region(spool__worker_t *v, uint64_t region)
{
    spool__frames_t *d = victim_frames(v);
    int64_t t;
    return d != NULL && spool__frames_peek(d, &t) &&
           spool__ctx_lookup(&v->frame_ctx, t).region == region;
}
