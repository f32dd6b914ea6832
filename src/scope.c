/* Scopes: spool_scope / spool_scope_fifo, the in-place variants and
 * spool_scope_spawn. */
#include <errno.h>
#include <stdlib.h>

#include "registry.h"
#include "scope.h"

static void scope_init(spool_scope_t *s, spool_pool_t *reg, spool__worker_t *owner, bool fifo,
                       bool in_place)
{
    if (spool__count_latch_init(&s->latch, owner, false) != 0)
        spool__abort("cannot initialise a scope's latch");
    s->registry = reg;
    s->fifo = fifo && reg != NULL;
    s->fifos = NULL;
    s->publish_spawns = in_place;
    /* FIFO spawns go through the FIFO, whose jobs anyone may take. */
    s->local_worker = s->fifo || in_place || reg == NULL ? NULL : owner;
    s->local_open = s->local_worker != NULL;
    s->local = 0;
    if (s->fifo) {
        s->fifos = calloc(reg->num_threads, sizeof *s->fifos);
        if (s->fifos == NULL)
            s->fifo = false; /* out of memory: still correct, in LIFO order */
    }
}

/* Runs the owner's local spawns still private (popping its newest jobs,
 * whatever they are, as its wait loop would), then drops the body's count,
 * waits for every counted job, frees the FIFOs. */
static void scope_complete(spool_scope_t *s, spool__worker_t *owner)
{
    if (s->local_open) {
        /* Every local spawn still private lies above the deque's state when
         * the scope began, so popping reaches each before anything older. */
        while (s->local > 0) {
            spool__job_t *job = spool__worker_pop(owner);
            if (SPOOL__UNLIKELY(job == NULL))
                spool__abort("internal error: a scope's local spawn is missing");
            SPOOL__STAT_INC(owner->stats.jobs_executed);
            spool__worker_run(owner, job, SPOOL__FROM_OWN);
        }
        s->local_open = false; /* later spawns, from jobs run below, count */
    }
    spool__count_latch_wait(&s->latch, owner);
    if (s->fifos != NULL) {
        /* Every job has run, so every indirect reference has been popped. */
        for (unsigned i = 0; i < s->registry->num_threads; i++) {
            if (s->fifos[i] != NULL)
                spool__job_fifo_delete(s->fifos[i]);
        }
        free(s->fifos);
    }
    spool__count_latch_destroy(&s->latch);
}

static void run_scope(spool__worker_t *w, spool_pool_t *reg, spool_scope_fn body, void *arg,
                      bool fifo, bool in_place)
{
    spool_scope_t s;
    scope_init(&s, reg, w, fifo, in_place);
    body(&s, arg);
    scope_complete(&s, w);
}

typedef struct scope_call {
    spool_scope_fn body;
    void *arg;
    bool fifo;
} scope_call_t;

static void scope_in_worker(void *arg)
{
    scope_call_t *c = arg;
    spool__worker_t *w = spool__current_worker();
    run_scope(w, w->registry, c->body, c->arg, c->fifo, false);
}

static void scope_on_worker(spool_scope_fn body, void *arg, bool fifo)
{
    spool__worker_t *w = spool__current_worker();
    if (w != NULL) {
        run_scope(w, w->registry, body, arg, fifo, false);
        return;
    }
    spool_pool_t *global = spool__global_registry();
    scope_call_t call = {.body = body, .arg = arg, .fifo = fifo};
    if (global != NULL && spool__registry_in_worker(global, scope_in_worker, &call) == 0)
        return;
    run_scope(NULL, NULL, body, arg, fifo, false); /* no pool: all on this thread */
}

static void scope_in_place(spool_scope_fn body, void *arg, bool fifo)
{
    spool__worker_t *w = spool__current_worker();
    run_scope(w, w != NULL ? w->registry : spool__global_registry(), body, arg, fifo, true);
}

void spool_scope(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_scope: NULL function");
    scope_on_worker(body, arg, false);
}

void spool_scope_fifo(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_scope_fifo: NULL function");
    scope_on_worker(body, arg, true);
}

void spool_in_place_scope(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_in_place_scope: NULL function");
    scope_in_place(body, arg, false);
}

void spool_in_place_scope_fifo(spool_scope_fn body, void *arg)
{
    if (SPOOL__UNLIKELY(body == NULL))
        spool__abort("spool_in_place_scope_fifo: NULL function");
    scope_in_place(body, arg, true);
}

static void scope_job_execute(spool__job_t *base)
{
    spool__heap_job_t *job = (spool__heap_job_t *)base;
    spool_scope_fn fn = (spool_scope_fn)job->job.fn;
    void *arg = job->job.arg;
    spool_scope_t *scope = job->job.ctx;
    /* Recycle the block before running: fn's own spawns can reuse it. */
    spool__job_free(&scope->registry->job_pool, &spool__current_worker()->jobs, job);
    fn(scope, arg);
    spool__count_latch_set(&scope->latch);
}

/* A local spawn, run by its scope's owner (a thief only ever gets it after
 * spool__scope_local_published made it counted). */
void spool__scope_local_execute(spool__job_t *base)
{
    spool__heap_job_t *job = (spool__heap_job_t *)base;
    spool_scope_fn fn = (spool_scope_fn)job->job.fn;
    void *arg = job->job.arg;
    spool_scope_t *scope = job->job.ctx;
    scope->local--;
    spool__job_free(&scope->registry->job_pool, &scope->local_worker->jobs, job);
    fn(scope, arg);
}

void spool__scope_local_published(spool__job_t *base)
{
    spool__heap_job_t *job = (spool__heap_job_t *)base;
    spool_scope_t *scope = job->job.ctx;
    scope->local--;
    /* The publisher runs inside the scope (its body or its end's drain),
     * whose body count is still held. */
    spool__count_latch_increment(&scope->latch);
    base->execute = scope_job_execute;
}

bool spool__scope_describe(const spool__job_t *job, spool__job_info_t *info)
{
    if (job->execute != scope_job_execute && job->execute != spool__scope_local_execute)
        return false;
    spool__trace_describe_heap((const spool__heap_job_t *)job, info);
    return true;
}

/* Worker w's FIFO in scope s, made on first use.  Only w touches s->fifos[w]
 * before the scope completes, so no synchronisation is needed. */
static spool__job_fifo_t *scope_fifo_of(spool_scope_t *s, spool__worker_t *w)
{
    spool__job_fifo_t *f = s->fifos[w->index];
    if (f == NULL) {
        f = spool__job_fifo_new();
        s->fifos[w->index] = f;
    }
    return f;
}

int spool_scope_spawn(spool_scope_t *scope, spool_scope_fn fn, void *arg)
{
    if (scope == NULL || fn == NULL)
        return EINVAL;
    spool_pool_t *reg = scope->registry;
    if (reg == NULL) {
        fn(scope, arg);
        return 0;
    }
    spool__worker_t *w = spool__current_worker();
    spool__job_cache_t *cache = spool__job_cache_of(reg, w);
    spool__heap_job_t *job = spool__job_alloc(&reg->job_pool, cache);
    if (job == NULL)
        return ENOMEM;
    job->job.fn = (void (*)(void))fn;
    job->job.arg = arg;
    job->job.ctx = scope;
    /* Only the scope's worker reads local_open: w == local_worker first. */
    if (w != NULL && w == scope->local_worker && scope->local_open) {
        /* Local: no count while private (publishing counts it). */
        job->job.base.execute = spool__scope_local_execute;
        scope->local++;
        if (SPOOL__LIKELY(spool__worker_push(w, &job->job.base)))
            return 0;
        scope->local--;
        spool__job_free(&reg->job_pool, cache, job);
        return ENOMEM;
    }
    job->job.base.execute = scope_job_execute;
    /* The spawner (the body, or a job of this scope) holds a count, so the
     * latch cannot be set between here and the push. */
    spool__count_latch_increment(&scope->latch);
    int err;
    if (cache == NULL) {
        err = spool__registry_inject(reg, &job->job.base);
    } else if (!scope->fifo) {
        err = spool__worker_push(w, &job->job.base) ? 0 : ENOMEM;
    } else {
        spool__job_fifo_t *f = scope_fifo_of(scope, w);
        err = f != NULL ? spool__worker_push_fifo(w, f, &job->job.base) : ENOMEM;
    }
    if (err != 0) {
        spool__job_free(&reg->job_pool, cache, job);
        spool__count_latch_set(&scope->latch);
    } else if (cache != NULL && scope->publish_spawns) {
        spool__worker_publish(w);
    }
    return err;
}
