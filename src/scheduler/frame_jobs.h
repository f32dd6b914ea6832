/*
 * Internal: a worker's typed frames (frame_jobs.c; frames/frames.md): its
 * frame deque, made on its first typed task, what its publication tells
 * the sleepers, the contexts of its frames, and a frame a thief takes,
 * which the take returns as a job of its own kind (frame_jobs.c).
 */
#ifndef SPOOL_FRAME_JOBS_H
#define SPOOL_FRAME_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "frames/frames.h"
#include "job/context.h"
#include "job/job.h"
#include "scheduler/wait.h"

struct spool__worker;

/* A frame its thief took, as the job its take returns: the thief's own
 * (one at a time: its execute reads it before it runs the frame). */
typedef struct spool__frame_job {
    spool__job_t base;
    struct spool__cell_v4 *cell;
    unsigned victim;     /* the frame's owner, whom its state may wake */
    spool__context_t ctx; /* the frame's context, its label */
} spool__frame_job_t;

/* w's frame deque (w is the calling worker), made on first use.  Aborts if
 * there is no memory for it, as a thread's stack overflow would. */
spool__frames_t *spool__worker_frames(struct spool__worker *w);

/* Runs frame (its header; any size) on w (the calling worker) at the head
 * of w's frame deque, its own spawns in context x (the frame contexts,
 * context.h with frame indices). */
void spool__worker_run_frame(struct spool__worker *w, struct spool__frame_hdr_v4 *frame,
                             spool__context_t x);

/* The owner w published n frames: the post-work protocol of a publication
 * (sleep.md), and the isolated sleepers if a region's frame is among them. */
void spool__worker_frames_posted(struct spool__worker *w, int64_t n, bool was_empty);

/* w waits in the library (w is the calling worker): serves an ask on its
 * frame deque, or with always (a region's waiter, isolate.md X5) publishes
 * its private frames in any case, so that thieves can take them meanwhile. */
void spool__worker_frames_share(struct spool__worker *w, bool always);

/* The take's steal from victim v's frame deque by w, with filter region (0:
 * any frame): the frame job, in the frame's context (t), or NULL; *retry
 * set if a steal lost a race. */
spool__job_t *spool__worker_steal_frame(struct spool__worker *w, struct spool__worker *v,
                                        unsigned victim, uint64_t region, spool__taken_t *t,
                                        bool *retry);

/* w's (the calling worker's) typed spawns not synced that no thief took:
 * a hint, as spool_current_thread_has_pending_tasks is. */
bool spool__worker_frames_pending(struct spool__worker *w);

/* Hints (relaxed): public frames on v's deque; one of region's first. */
bool spool__worker_frames_public(struct spool__worker *v);
bool spool__worker_frames_of_region(struct spool__worker *v, uint64_t region);

#endif
