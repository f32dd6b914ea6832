/* FIFOs and their tickets (see job_fifo.h; fifo.md). */
#include "scheduler/job_fifo.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "platform/atomics.h"
#include "platform/tuning.h"
#include "scheduler/worker.h"

/* How a reference of ticket t runs its call: local (not counted) or not. */
static inline spool__fifo_run_t run_of(const spool__heap_job_t *t)
{
    const spool__fifo_ops_t *ops = t->ticket.fifo->ops;
    return t->ticket.base.execute == spool__fifo_ticket_local_execute ? ops->run_local : ops->run;
}

/* A call's run by w, recorded as a job of its own while w records the calls
 * of the ticket it runs (worker.h). */
static SPOOL__NOINLINE void call_recorded(spool__worker_t *w, spool__fifo_run_t run, void *ctx,
                                          spool__fifo_call_t call)
{
    spool__call_record_t rec;
    spool__worker_record_begin(w, &rec);
    run(ctx, call);
    spool__worker_record_end(w, &rec, call.fn, call.arg);
}

static SPOOL__ALWAYS_INLINE void call_run(spool__worker_t *w, spool__fifo_run_t run, void *ctx,
                                          spool__fifo_call_t call)
{
    if (SPOOL__UNLIKELY(spool__worker_recording(w))) {
        call_recorded(w, run, ctx, call);
        return;
    }
    run(ctx, call);
}

/* Runs the front call of f with run on w, owed to a reference the caller
 * spends.  The call keeps f's scope (or pool) alive until it has run, so f
 * is still there while it is taken. */
static inline void run_front(spool__worker_t *w, spool__job_fifo_t *f, spool__fifo_run_t run)
{
    void *ctx = f->ctx;
    call_run(w, run, ctx, spool__fifo_queue_take(&f->queue));
}

static void ticket_free(spool__worker_t *w, spool__heap_job_t *t)
{
    spool__job_free(&w->pool->job_pool, &w->jobs, t);
}

/* Spends one reference of ticket t, which the calling worker w holds and
 * whose references run with run: the rest is pushed on w's deque first
 * (back where it was, for its own FIFO's private ticket, so that it stays
 * the open one), published if another worker is idle or the calls are
 * coarse (deque.md, rules 3 and 4); returns the call to run.  If the rest
 * cannot be pushed (the deque could not grow), it is spent here at once on
 * the FIFO's front calls, and the call returned is the one after them. */
static spool__fifo_call_t ticket_step(spool__heap_job_t *t, spool__worker_t *w,
                                      spool__fifo_run_t run)
{
    spool__job_fifo_t *f = t->ticket.fifo;
    bool own = t->ticket.base.execute != spool__fifo_ticket_execute;
    size_t n = --t->ticket.count;
    if (n == 0 || !spool__worker_push(w, &t->ticket.base)) {
        if (own && f->open_ticket == t)
            f->open_ticket = NULL; /* off the deque from here */
        ticket_free(w, t);
        while (n-- > 0)
            run_front(w, f, run);
    } else {
        spool__worker_share_before_entry(w);
    }
    return spool__fifo_queue_take(&f->queue);
}

/* Out of line for private_execute, which then saves no register: the rest
 * pushed back is published, then the call taken runs with run, its
 * ticket's kind when it was spent (publication counts only the references
 * left in the ticket).  Called when another worker is idle or the calls
 * are coarse (deque.md, rules 3 and 4), and when the
 * take lost a race: another worker takes from this FIFO at the same time
 * (a thief with one of its published tickets), and published, the rest is
 * taken in batches too (spool__fifo_ticket_execute, fifo.md),
 * not one CAS on the shared front per call. */
static SPOOL__NOINLINE void publish_then_run(spool__worker_t *w, spool__job_fifo_t *f,
                                             spool__fifo_run_t run)
{
    spool__worker_publish(w);
    run_front(w, f, run);
}

/* Out of line for the same reason: the last reference, or a push back that
 * needs more. */
static SPOOL__NOINLINE void step_then_run(spool__heap_job_t *t, spool__worker_t *w)
{
    spool__job_fifo_t *f = t->ticket.fifo;
    spool__fifo_run_t run = run_of(t);
    void *ctx = f->ctx;
    call_run(w, run, ctx, ticket_step(t, w, run));
}

/* A private ticket of the calling worker's own FIFO, whose references run
 * with run.  The common case inline (more references left, pushed back
 * privately), the call run as a tail call; the last reference, or a push
 * back that needs more, takes ticket_step. */
static inline void private_execute(spool__job_t *job, spool__fifo_run_t run)
{
    spool__heap_job_t *t = (spool__heap_job_t *)job;
    spool__worker_t *w = spool__current_worker();
    if (SPOOL__UNLIKELY(t->ticket.count == 1 || !spool__deque_push_private(&w->deque, job))) {
        step_then_run(t, w);
        return;
    }
    t->ticket.count--; /* private still: nobody else sees it */
    spool__job_fifo_t *f = t->ticket.fifo;
    if (SPOOL__UNLIKELY(spool__pace_coarse(&w->pace) || spool__worker_share_early(w))) {
        publish_then_run(w, f, run);
        return;
    }
    spool__fifo_call_t call;
    if (SPOOL__UNLIKELY(!spool__fifo_queue_try_take(&f->queue, &call))) {
        publish_then_run(w, f, run); /* contended: see there */
        return;
    }
    call_run(w, run, f->ctx, call);
}

void spool__fifo_ticket_private_execute(spool__job_t *job)
{
    private_execute(job, ((spool__heap_job_t *)job)->ticket.fifo->ops->run);
}

void spool__fifo_ticket_local_execute(spool__job_t *job)
{
    private_execute(job, ((spool__heap_job_t *)job)->ticket.fifo->ops->run_local);
}

/* A published ticket's holder claims its calls in batches (one CAS on the
 * FIFO's front for up to tuning.fifo_batch_max: fifo.md), growing from one
 * call while each batch runs in under tuning.fifo_batch_ns, so that only
 * calls this short are ever claimed ahead of their turn. */

/* A published ticket, run by whichever worker w took it: its references
 * here, a batch of calls after the other (tuning.fifo_batch_max), until
 * a thief asks w for work or another worker is idle; then the rest is
 * handed on (pushed on w's deque and published) before the batch taken
 * runs. */
void spool__fifo_ticket_execute(spool__job_t *job)
{
    spool__heap_job_t *t = (spool__heap_job_t *)job;
    spool__worker_t *w = spool__current_worker();
    spool__job_fifo_t *f = t->ticket.fifo;
    const spool__fifo_ops_t *ops = f->ops;
    spool__fifo_run_t run = ops->run_uncounted != NULL ? ops->run_uncounted : ops->run;
    void *ctx = f->ctx;
    size_t done = 0, batch = 1;
    /* A ticket of one reference is done after its first batch: no clock. */
    uint64_t batch_start = t->ticket.count > 1 ? spool__now_ns() : 0;
    for (;;) {
        spool__fifo_call_t calls[SPOOL__FIFO_BATCH_LIMIT];
        size_t k = spool__fifo_queue_take_n(&f->queue, calls,
                                            batch < t->ticket.count ? batch : t->ticket.count);
        size_t n = t->ticket.count -= k;
        bool coarse = spool__pace_coarse(&w->pace); /* a batch counts as one entry */
        bool handed_on = n > 0 && spool__worker_hand_on(w, job, coarse);
        if (n == 0)
            ticket_free(w, t);
        /* Our references keep these calls' counts, so f (and its scope)
         * lives on until they are dropped. */
        for (size_t i = 0; i < k; i++)
            call_run(w, run, ctx, calls[i]);
        done += k;
        if (n == 0 || handed_on) {
            if (ops->run_uncounted != NULL)
                ops->counted_done(ctx, done);
            if (n == 0)
                spool__demand_stolen_done(&w->demand, done);
            return;
        }
        /* The next batch: as many calls as ran in tuning.fifo_batch_ns at
         * this batch's pace (claim included), at least one. */
        uint64_t end = spool__now_ns();
        uint64_t per_call = (end - batch_start) / k;
        uint64_t max = spool__tuning.fifo_batch_max, ns = spool__tuning.fifo_batch_ns;
        if (per_call * max < ns)
            batch = max;
        else if (per_call >= ns)
            batch = 1;
        else
            batch = (size_t)(ns / per_call);
        batch_start = end;
    }
}

/* A ticket's label: its FIFO's (the scope's, or none). */
static spool__context_t ticket_label(const spool__job_t *job)
{
    const spool__job_fifo_t *f = ((const spool__heap_job_t *)job)->ticket.fifo;
    return f->ops->label(f->ctx);
}

/* A ticket's own name: the call it runs is known only once taken. */
static void ticket_describe(const spool__job_t *job, spool__job_info_t *info)
{
    info->fn = spool__fn_bits((void (*)(void))job->execute);
    info->arg = (uint64_t)(uintptr_t)job;
}

static const spool__job_kind_t kind_private_ticket = {
    .name = "private ticket",
    .execute = spool__fifo_ticket_private_execute,
    .label = ticket_label,
    .published = spool__fifo_ticket_published,
    .describe = ticket_describe,
    .records_calls = true};
SPOOL__JOB_KIND_ROW(kind_private_ticket);
static const spool__job_kind_t kind_local_ticket = {.name = "local ticket",
                                                    .execute = spool__fifo_ticket_local_execute,
                                                    .label = ticket_label,
                                                    .published = spool__fifo_ticket_published,
                                                    .describe = ticket_describe,
                                                    .records_calls = true};
SPOOL__JOB_KIND_ROW(kind_local_ticket);
static const spool__job_kind_t kind_ticket = {.name = "ticket",
                                              .execute = spool__fifo_ticket_execute,
                                              .label = ticket_label,
                                              .published = spool__fifo_ticket_published,
                                              .describe = ticket_describe,
                                              .records_calls = true};
SPOOL__JOB_KIND_ROW(kind_ticket);
/* Out of line so that an added reference (spool__worker_push_fifo) saves
 * no register.  A thief that asked gets the open ticket
 * first (publishing closes it), as a push would publish it (rule 2). */
int spool__job_fifo_push_ticket(spool__worker_t *w, spool__job_fifo_t *f, spool__fifo_fn_t fn,
                                void *arg, bool local)
{
    spool__deque_t *d = &w->deque;
    if (spool__deque_demanded(d))
        spool__worker_publish(w);
    spool__heap_job_t *t = spool__job_alloc(&w->pool->job_pool, &w->jobs);
    if (t == NULL)
        return ENOMEM;
    if (!spool__fifo_queue_push(&f->queue, fn, arg)) {
        ticket_free(w, t);
        return ENOMEM;
    }
    t->ticket.base.execute =
        local ? spool__fifo_ticket_local_execute : spool__fifo_ticket_private_execute;
    t->ticket.fifo = f;
    t->ticket.count = 1;
    /* Open before the push: a publication by the push closes it again. */
    f->open_ticket = t;
    f->open_index = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (!spool__worker_push(w, &t->ticket.base)) {
        /* No room for it: spend its reference here (on the FIFO's front
         * call, so every queued call keeps one reference). */
        f->open_ticket = NULL;
        ticket_free(w, t);
        run_front(w, f, local ? f->ops->run_local : f->ops->run);
    }
    return 0;
}

int spool__job_fifo_init(spool__job_fifo_t *f, const spool__fifo_ops_t *ops, void *ctx)
{
    f->ops = ops;
    f->ctx = ctx;
    f->open_ticket = NULL;
    f->open_index = 0;
    return spool__fifo_queue_init(&f->queue);
}

void spool__job_fifo_destroy(spool__job_fifo_t *f)
{
    spool__fifo_queue_destroy(&f->queue);
}

spool__job_fifo_t *spool__job_fifo_new(const spool__fifo_ops_t *ops, void *ctx)
{
    /* aligned_alloc wants a multiple of the alignment. */
    size_t line = SPOOL__CACHE_LINE;
    size_t size = (sizeof(spool__job_fifo_t) + line - 1) / line * line;
    spool__job_fifo_t *f = aligned_alloc(SPOOL__CACHE_LINE, size);
    if (f == NULL)
        return NULL;
    if (spool__job_fifo_init(f, ops, ctx) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

void spool__job_fifo_delete(spool__job_fifo_t *f)
{
    spool__job_fifo_destroy(f);
    free(f);
}
