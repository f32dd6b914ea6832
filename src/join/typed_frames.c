/* Typed tasks' cells (include/spool_typed.h; frames/frames.md): the
 * spawn's and the sync's slow paths, SPOOL_RUN and SPOOL_RUN_IN, and the
 * frame deque of a thread outside any pool. */
#include <pthread.h>

#include "frames/frames.h"
#include "join/typed.h"
#include "scheduler/worker.h"

/* A thread outside any pool runs typed tasks on a frame deque of its own,
 * which no thief sees: its spawns and syncs never leave the fast path. */
static __thread spool__frames_t *own_frames;
static pthread_once_t own_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t own_key;
static bool own_key_made;

static void own_free(void *d)
{
    spool__frames_destroy(d);
}

static void own_key_make(void)
{
    own_key_made = pthread_key_create(&own_key, own_free) == 0;
}

static spool__frames_t *thread_frames(void)
{
    if (SPOOL__LIKELY(own_frames != NULL))
        return own_frames;
    own_frames = spool__frames_create(NULL, false);
    if (own_frames == NULL)
        spool__abort("typed tasks: no memory for this thread's frame deque");
    pthread_once(&own_key_once, own_key_make);
    /* Without a key (none left) the deque lives as long as the process. */
    if (own_key_made)
        (void)pthread_setspecific(own_key, own_frames);
    return own_frames;
}

void spool__typed_here_v4(void *frame)
{
    struct spool__frame_hdr_v4 *f = frame;
    spool__worker_t *w = spool__current_worker();
    if (w != NULL) {
        spool__worker_run_frame(w, f, w->ctx.top);
        return;
    }
    spool__frames_t *d = thread_frames();
    f->steal(f, spool__frames_cell(d, spool__frames_head(d)));
}

void spool__typed_run_v4(spool_pool_t *pool, int in, struct spool__frame_hdr_v4 *frame)
{
    spool__typed_run_in(pool, in, spool__typed_here_v4, frame);
}

void spool__frames_spawn_slow_v4(struct spool__cell_v4 *c, const char *name)
{
    spool__frames_t *d = spool__frames_of(c);
    if ((uintptr_t)c >= d->overflow)
        spool__typed_overflow_v4(name);
    /* An ask (only a worker's deque has thieves). */
    bool was_empty;
    int64_t n = spool__frames_spawned_slow(d, spool__frames_index(d, c), &was_empty);
    if (n > 0)
        spool__worker_frames_posted(d->owner, n, was_empty);
}

int spool__frames_sync_slow_v4(struct spool__cell_v4 *c)
{
    spool__frames_t *d = spool__frames_of(c);
    int64_t i = spool__frames_index(d, c), n;
    bool was_empty;
    if (spool__frames_popped_slow(d, i, &n, &was_empty) == SPOOL__FRAMES_MINE) {
        if (n > 0)
            spool__worker_frames_posted(d->owner, n, was_empty);
        c->hdr.steal = NULL; /* the cell is free (F1) */
        return 1;
    }
    /* A thief runs it.  Meanwhile the owner runs other work; what it runs
     * spawns above cell i, which holds its spawn until we are done (F1). */
    spool__worker_t *w = d->owner;
    spool__wait_recorded(w, (spool__core_latch_t *)(void *)spool__frames_state(c),
                         (void (*)(void *))(void (*)(void))c->hdr.steal, c);
    spool__frames_stolen_done(d, i);
    return 0;
}
