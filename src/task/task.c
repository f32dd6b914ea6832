/* Tasks with handles and dependencies: spool_task_* (see task.h, task.md). */
#include "task/task.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pool/global.h"
#include "sleep/latch.h"
#include "scheduler/pool.h"
#include "platform/test_hooks.h"
#include "scheduler/worker.h"

/* A thread waiting for a task (spool_task_wait), on its own stack. */
typedef struct spool__task_waiter {
    struct spool__task_waiter *next;
    bool on_worker;
    union {
        spool__spin_latch_t spin; /* a worker's, which runs jobs meanwhile */
        spool__lock_latch_t lock; /* an outside thread's, which blocks */
    };
} task_waiter_t;

/* ---- memory ----------------------------------------------------------------- */

static spool_task_t *task_alloc(spool_pool_t *pool)
{
    if (spool__test_alloc_fails())
        return NULL;
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool)
        return spool__block_get(&w->task_blocks, &pool->task_blocks, sizeof(spool_task_t));
    return spool__block_depot_get(&pool->task_blocks, sizeof(spool_task_t));
}

static void task_free(spool_task_t *t)
{
    spool_pool_t *pool = t->pool;
    if (t->succ != t->succ_inline)
        free(t->succ);
    spool__worker_t *w = spool__current_worker();
    if (w != NULL && w->pool == pool)
        spool__block_put(&w->task_blocks, &pool->task_blocks, t, sizeof *t);
    else
        spool__block_depot_put(&pool->task_blocks, t, sizeof *t);
    spool__pool_unref(pool); /* after the put: the depot is the pool's */
}

void spool__task_unref(spool_task_t *t)
{
    /* Acq_rel: the last one out sees every other holder's use finished. */
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        task_free(t);
}

/* ---- finishing: successors, waiters, the completion tag --------------------- */

static void task_execute(spool__job_t *job);
static void cancel_tree(spool_task_t *t);

/* t has reached final (DONE or CANCELLED; the caller moved it there): takes
 * its successors and waiters, posts its tag, wakes its waiters, and passes
 * the news on.  Successors of a cancelled task are cancelled; for a task
 * that ran, each gets one predecessor less.  *next collects successors to
 * cancel (cancel_tree's work list); NULL: cancel them here. */
static void task_finish(spool_task_t *t, int final, spool_task_t ***cancel_out, size_t *ncancel,
                        size_t *cancel_cap);

static void task_schedule(spool_task_t *t);

static bool is_worker_of(spool_pool_t *pool)
{
    spool__worker_t *w = spool__current_worker();
    return w != NULL && w->pool == pool;
}

/* A predecessor of t has finished (ran): one less to wait for. */
static void predecessor_done(spool_task_t *t)
{
    /* Acq_rel pairs with the other decrements: whoever reaches zero has seen
     * every predecessor's effects, and passes them on to the job. */
    SPOOL__COUNT(rmw_counts);
    if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel) == 1)
        task_schedule(t);
}

/* t's last predecessor has finished and t is submitted: its job goes on the
 * calling worker's deque (a chain stays on a warm worker) or into its pool's
 * injector.  A task cancelled meanwhile was released by its canceller. */
static void task_schedule(spool_task_t *t)
{
    int expected = SPOOL__TASK_WAITING;
    /* Acq_rel: one total order with the canceller's CAS on state; the job's
     * push publishes t to whoever runs it. */
    if (!atomic_compare_exchange_strong_explicit(&t->state, &expected, SPOOL__TASK_READY,
                                                 memory_order_acq_rel, memory_order_acquire))
        return;
    spool__worker_t *w = spool__current_worker();
    /* Made ready inside an isolation region, it is the region's work: its
     * isolated waiters may run it (isolate.md). */
    if (w != NULL && w->pool == t->pool) {
        t->region = w->ctx.top.region;
        if (spool__worker_push(w, &t->base))
            return;
    } else {
        t->region = 0;
        if (spool__pool_inject(t->pool, &t->base, NULL) == 0)
            return;
    }
    /* No room to queue it (out of memory): it runs here, now. */
    task_execute(&t->base);
}

static void wake_waiters(task_waiter_t *wt)
{
    while (wt != NULL) {
        task_waiter_t *next = wt->next; /* wt dies once its latch is set */
        if (wt->on_worker)
            spool__spin_latch_set(&wt->spin);
        else
            spool__lock_latch_set(&wt->lock);
        wt = next;
    }
}

/* Has t finished (its tag posted, its lists taken)? */
static bool task_finished(spool_task_t *t)
{
    spool__task_lock(t);
    bool finished = t->finished;
    spool__task_unlock(t);
    return finished;
}

static bool push_cancel(spool_task_t ***list, size_t *n, size_t *cap, spool_task_t *t)
{
    if (*n == *cap) {
        size_t c = *cap != 0 ? 2 * *cap : 16;
        spool_task_t **grown = realloc(*list, c * sizeof **list);
        if (grown == NULL)
            return false;
        *list = grown;
        *cap = c;
    }
    (*list)[(*n)++] = t;
    return true;
}

static void task_finish(spool_task_t *t, int final, spool_task_t ***cancel_out, size_t *ncancel,
                        size_t *cancel_cap)
{
    spool__task_lock(t);
    /* The tag before finished (K7): a waiter that finds t finished returns,
     * and its caller may then drain the queue.  notify cannot give a queue
     * any more (t is no longer CREATED), and a reader of the queue finds t
     * done (its state was set first). */
    spool_completions_t *cq = t->cq;
    void *tag = t->tag;
    if (cq != NULL) {
        spool__task_unlock(t);
        spool__completions_post(cq, tag);
        spool__task_lock(t);
    }
    t->finished = true;
    spool_task_t **succ = t->succ;
    size_t nsucc = t->nsucc;
    task_waiter_t *waiters = t->waiters;
    t->waiters = NULL;
    spool__task_unlock(t);
    /* Nothing joins the lists once finished: read them without the lock. */
    wake_waiters(waiters);
    for (size_t i = 0; i < nsucc; i++) {
        spool_task_t *s = succ[i];
        if (final == SPOOL__TASK_DONE) {
            predecessor_done(s);
            spool__task_unref(s);
        } else if (cancel_out == NULL || !push_cancel(cancel_out, ncancel, cancel_cap, s)) {
            /* (Out of memory for the work list: recursion instead.) */
            cancel_tree(s);
            spool__task_unref(s);
        }
    }
}

/* Moves t to CANCELLED if it has not started.  Returns the state it left
 * (or SPOOL__TASK_RUNNING / _DONE / _CANCELLED if it did nothing). */
static int cancel_one(spool_task_t *t)
{
    int st = atomic_load_explicit(&t->state, memory_order_acquire);
    for (;;) {
        if (st != SPOOL__TASK_CREATED && st != SPOOL__TASK_WAITING && st != SPOOL__TASK_READY)
            return st;
        /* Acq_rel: one order with task_schedule's and task_execute's CAS. */
        if (atomic_compare_exchange_weak_explicit(&t->state, &st, SPOOL__TASK_CANCELLED,
                                                  memory_order_acq_rel, memory_order_acquire))
            return st;
    }
}

/* After cancel_one moved t from `from`: what t's scheduling held is
 * released, and t finishes as cancelled.  A WAITING task is nobody's to
 * queue any more (task_schedule's CAS fails), so its canceller drops the
 * scheduler's reference and the pool's count; a READY task's job is still
 * queued and drops them when it runs. */
static void cancelled_from(spool_task_t *t, int from, spool_task_t ***list, size_t *n,
                           size_t *cap)
{
    task_finish(t, SPOOL__TASK_CANCELLED, list, n, cap);
    if (from == SPOOL__TASK_WAITING) {
        spool__pool_work_done(t->pool);
        spool__task_unref(t);
    }
}

/* Cancels t and, transitively, its successors: a work list, not recursion,
 * so that a chain of a million tasks does not take a million frames. */
static void cancel_tree(spool_task_t *t)
{
    spool_task_t **list = NULL;
    size_t n = 0, cap = 0;
    int from = cancel_one(t);
    if (from == SPOOL__TASK_CREATED || from == SPOOL__TASK_WAITING || from == SPOOL__TASK_READY)
        cancelled_from(t, from, &list, &n, &cap);
    while (n > 0) {
        spool_task_t *s = list[--n];
        from = cancel_one(s);
        if (from == SPOOL__TASK_CREATED || from == SPOOL__TASK_WAITING ||
            from == SPOOL__TASK_READY)
            cancelled_from(s, from, &list, &n, &cap);
        spool__task_unref(s); /* the predecessor's list entry */
    }
    free(list);
}

/* The one who moves t from READY to RUNNING runs it: its queued job, or a
 * waiter of its pool (spool_task_wait). */
static bool task_claim(spool_task_t *t)
{
    int expected = SPOOL__TASK_READY;
    /* Acq_rel: one order with the canceller's CAS and the other claimer's;
     * acquire also sees the predecessors' effects (through pending's
     * release sequence and the job's hand-over). */
    return atomic_compare_exchange_strong_explicit(&t->state, &expected, SPOOL__TASK_RUNNING,
                                                   memory_order_acq_rel, memory_order_acquire);
}

/* Claimed: runs t and finishes it. */
static void task_run(spool_task_t *t)
{
    /* A task belongs to no scope.  It runs in the isolation region of the
     * worker that runs it (isolate.md): one run inside a region stays
     * there, so that what it waits for takes only the region's jobs. */
    spool__worker_t *w = spool__current_worker();
    bool entered = spool__worker_enter_unscoped(w);
    t->fn(t->arg);
    if (entered)
        spool__worker_ctx_pop(w);
    /* Release pairs with the acquire loads of spool_task_done. */
    atomic_store_explicit(&t->state, SPOOL__TASK_DONE, memory_order_release);
    task_finish(t, SPOOL__TASK_DONE, NULL, NULL, NULL);
}

static void task_execute(spool__job_t *job)
{
    spool_task_t *t = (spool_task_t *)job;
    spool_pool_t *pool = t->pool;
    if (task_claim(t))
        task_run(t);
    /* Run (here or by a waiter) or cancelled while queued: the scheduler's
     * hold ends here. */
    spool__pool_work_done(pool);
    spool__task_unref(t);
}

static void task_describe(const spool__job_t *job, spool__job_info_t *info)
{
    const spool_task_t *t = (const spool_task_t *)job;
    spool__trace_describe_call(t->fn, t->arg, info);
}

/* A task belongs to no scope; its region is the one it was made ready in
 * (task_schedule). */
static spool__context_t task_label(const spool__job_t *job)
{
    return (spool__context_t){NULL, ((const spool_task_t *)job)->region};
}

static const spool__job_kind_t kind_task = {
    .name = "task", .execute = task_execute, .label = task_label, .describe = task_describe};
SPOOL__JOB_KIND_ROW(kind_task);

/* ---- the API ------------------------------------------------------------------ */

int spool_task_create(spool_pool_t *pool, spool_fn fn, void *arg, spool_task_t **out)
{
    if (fn == NULL || out == NULL)
        return EINVAL;
    if (pool == NULL) {
        spool__worker_t *w = spool__current_worker();
        pool = w != NULL ? w->pool : spool__global_pool();
        if (pool == NULL)
            return ECANCELED;
    }
    int err = spool__pool_check_fork(pool);
    if (err != 0)
        return err;
    /* Relaxed: a hint; submit checks again with the count it takes. */
    if (atomic_load_explicit(&pool->lifecycle, memory_order_relaxed) & SPOOL__DESTROYING &&
        !is_worker_of(pool))
        return ECANCELED;
    spool_task_t *t = task_alloc(pool);
    if (t == NULL)
        return ENOMEM;
    memset(t, 0, sizeof *t);
    t->base.execute = task_execute;
    t->fn = fn;
    t->arg = arg;
    t->pool = pool;
    spool__pool_ref(pool);
    atomic_init(&t->state, SPOOL__TASK_CREATED);
    atomic_init(&t->refs, 1);
    atomic_init(&t->pending, 1);
    atomic_init(&t->lock, 0);
    t->succ = t->succ_inline;
    t->succ_cap = SPOOL__TASK_INLINE_SUCCESSORS;
    *out = t;
    return 0;
}

/* The graph lock: precede is the only writer of successor lists of
 * unfinished tasks, so holding it makes the cycle check's view stable. */
static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;

/* t's lock held: room for one more successor. */
static bool successor_room(spool_task_t *t)
{
    if (t->nsucc < t->succ_cap)
        return true;
    if (spool__test_alloc_fails())
        return false;
    size_t cap = 2 * t->succ_cap;
    spool_task_t **grown = t->succ == t->succ_inline ? malloc(cap * sizeof *grown)
                                                     : realloc(t->succ, cap * sizeof *grown);
    if (grown == NULL)
        return false;
    if (t->succ == t->succ_inline)
        memcpy(grown, t->succ_inline, sizeof t->succ_inline);
    t->succ = grown;
    t->succ_cap = cap;
    return true;
}

int spool_task_precede(spool_task_t *a, spool_task_t *b)
{
    if (a == NULL || b == NULL || a == b)
        return EINVAL;
    pthread_mutex_lock(&graph_lock);
    /* Acquire: b's state as its submitter or canceller left it. */
    if (atomic_load_explicit(&b->state, memory_order_acquire) != SPOOL__TASK_CREATED) {
        pthread_mutex_unlock(&graph_lock);
        return EINVAL;
    }
    int r = spool__task_reaches(b, a);
    if (r != 0) {
        pthread_mutex_unlock(&graph_lock);
        return r > 0 ? EINVAL : ENOMEM;
    }
    int err = 0;
    bool cancel_b = false;
    spool__task_lock(a);
    if (a->finished) {
        /* An a that ran adds nothing; one that was cancelled cancels b. */
        cancel_b = atomic_load_explicit(&a->state, memory_order_acquire) == SPOOL__TASK_CANCELLED;
    } else if (!successor_room(a)) {
        err = ENOMEM;
    } else {
        /* Before the entry: a's finish may decrement at once. */
        atomic_fetch_add_explicit(&b->pending, 1, memory_order_relaxed);
        SPOOL__COUNT(rmw_counts);
        spool__task_ref(b);
        a->succ[a->nsucc++] = b;
    }
    spool__task_unlock(a);
    pthread_mutex_unlock(&graph_lock);
    if (cancel_b)
        cancel_tree(b);
    return err;
}

int spool_task_notify(spool_task_t *task, spool_completions_t *cq, void *tag)
{
    if (task == NULL || cq == NULL)
        return EINVAL;
    spool__task_lock(task);
    int err = 0;
    if (atomic_load_explicit(&task->state, memory_order_acquire) != SPOOL__TASK_CREATED)
        err = EINVAL;
    else if (task->cq != NULL)
        err = EALREADY;
    else
        err = spool__completions_reserve(cq);
    if (err == 0) {
        task->cq = cq;
        task->tag = tag;
    }
    spool__task_unlock(task);
    return err;
}

int spool_task_submit(spool_task_t *task)
{
    if (task == NULL)
        return EINVAL;
    spool_pool_t *pool = task->pool;
    /* The pool's count of outstanding work, held until the job ran (or was
     * dropped): destroy waits for it. */
    if (is_worker_of(pool)) {
        spool__pool_add_work_internal(pool);
    } else {
        int err = spool__pool_check_fork(pool);
        if (err == 0)
            err = spool__pool_add_work_external(pool);
        if (err != 0) {
            if (atomic_load_explicit(&task->state, memory_order_acquire) != SPOOL__TASK_CREATED)
                return EINVAL;
            cancel_tree(task);
            return err;
        }
    }
    spool__task_ref(task); /* the scheduler's */
    int expected = SPOOL__TASK_CREATED;
    /* Acq_rel: one order with the canceller's CAS and precede's look. */
    if (!atomic_compare_exchange_strong_explicit(&task->state, &expected, SPOOL__TASK_WAITING,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        spool__task_unref(task);
        spool__pool_work_done(pool);
        return EINVAL;
    }
    predecessor_done(task); /* the "not submitted" count */
    return 0;
}

int spool_task_wait(spool_task_t *task)
{
    if (task == NULL)
        return EINVAL;
    task_waiter_t wt;
    spool__worker_t *w = spool__current_worker();
    /* A worker of its pool runs a ready task itself rather than wait for
     * it: the wait then needs nobody else (an isolated waiter, a pool of
     * one).  Its queued job finds it claimed and only lets go. */
    if (w != NULL && w->pool == task->pool && task_claim(task)) {
        task_run(task);
        return 0;
    }
    spool__task_lock(task);
    if (task->finished) {
        spool__task_unlock(task);
        return 0;
    }
    if (atomic_load_explicit(&task->state, memory_order_acquire) == SPOOL__TASK_CREATED) {
        spool__task_unlock(task);
        return EDEADLK;
    }
    wt.on_worker = w != NULL;
    if (wt.on_worker) {
        /* Cross: the setter may run in another pool. */
        spool__worker_latch_init(&wt.spin, w, true);
    } else if (spool__lock_latch_init(&wt.lock) != 0) {
        spool__task_unlock(task);
        /* No latch to block on: poll, as a yield loop (finished, not the
         * state: the tag is posted in between, K7). */
        while (!task_finished(task))
            sched_yield();
        return 0;
    }
    wt.next = task->waiters;
    task->waiters = &wt;
    spool__task_unlock(task);
    if (wt.on_worker) {
        spool__wait_until(w, &wt.spin.core);
    } else {
        spool__lock_latch_wait(&wt.lock, true);
        spool__lock_latch_destroy(&wt.lock);
    }
    return 0;
}

int spool_task_done(const spool_task_t *task)
{
    if (task == NULL)
        return 0;
    /* Acquire pairs with the release stores of DONE and the CAS to
     * CANCELLED: a 1 makes the task's effects visible. */
    int st = atomic_load_explicit(&((spool_task_t *)task)->state, memory_order_acquire);
    return st == SPOOL__TASK_DONE || st == SPOOL__TASK_CANCELLED;
}

int spool_task_cancelled(const spool_task_t *task)
{
    if (task == NULL)
        return 0;
    /* Acquire: as in spool_task_done. */
    return atomic_load_explicit(&((spool_task_t *)task)->state, memory_order_acquire) ==
           SPOOL__TASK_CANCELLED;
}

int spool_task_cancel(spool_task_t *task)
{
    if (task == NULL)
        return EINVAL;
    int st = atomic_load_explicit(&task->state, memory_order_acquire);
    if (st == SPOOL__TASK_RUNNING || st == SPOOL__TASK_DONE)
        return EBUSY;
    cancel_tree(task);
    st = atomic_load_explicit(&task->state, memory_order_acquire);
    return st == SPOOL__TASK_CANCELLED ? 0 : EBUSY;
}

void spool_task_release(spool_task_t *task)
{
    if (task == NULL)
        return;
    /* Never submitted: it could never run, so it is cancelled (its tag
     * posted, its successors cancelled). */
    if (atomic_load_explicit(&task->state, memory_order_acquire) == SPOOL__TASK_CREATED)
        cancel_tree(task);
    spool__task_unref(task);
}
