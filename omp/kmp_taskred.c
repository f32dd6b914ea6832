/* Taskgroups and task reductions through the __kmpc_ door (omp.md, "The
 * __kmpc_ door"): task_reduction on a taskgroup, reduction on a taskloop, reduction(task,
 * ...) on a parallel or a loop, and in_reduction on the tasks taking part.
 * Unlike gcc, clang leaves the private copies to the runtime: it gives the
 * items' initializer, combiner and finalizer, and each task asks for the
 * calling thread's copy of an item by its shared address.  A thread's copy
 * lives from its first use (or from the registration) to the taskgroup's
 * end, where every copy is combined into the shared item. */
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gomp_abi.h"
#include "kmp_abi.h"
#include "task.h"
#include "team.h"
#include "work.h"

/* A copy's size is rounded up to this, so threads' copies share no line. */
#define COPY_ALIGN 64

typedef struct red_item {
    void *orig;    /* init's second argument (new interface), else NULL */
    bool two_args; /* init takes (copy, orig) */
    bool lazy;     /* copies made at a thread's first use */
    size_t size;   /* a copy's, rounded up */
    void (*init)(void); /* (copy, orig) or (copy) */
    void (*fini)(void *);
    void (*comb)(void *shar, void *copy);
    char *block;   /* not lazy: nth copies */
    _Atomic(void *) *slots; /* lazy: a thread's copy, or NULL */
} red_item_t;

/* What the team shares: every thread's copies. */
typedef struct red_shared {
    spool__omp_team_t *team;
    unsigned nth, num;
    /* reduction(task, ...): threads past their construct's end. */
    _Atomic unsigned ended;
    red_item_t items[];
} red_shared_t;

/* A thread's handle (what clang passes back to get_th_data): the items'
 * shared addresses, which for reduction(task, ...) are each thread's own
 * (its private copy of the construct's reduction). */
struct spool__kmp_taskred {
    red_shared_t *sh; /* NULL: a team of one, every item is its own copy */
    struct spool__kmp_taskred *parent; /* the enclosing registrations */
    spool__omp_ws_t *ws;               /* reduction(task, ...): where sh is shared */
    unsigned num;
    void *shar[];
};

/* clang's two layouts of an item: kmp_taskred_input_t and the older
 * kmp_task_red_input_t (no orig; init takes one argument). */
typedef struct taskred_input {
    void *shar, *orig;
    size_t size;
    void (*init)(void);
    void (*fini)(void *);
    void (*comb)(void *shar, void *copy);
    uint32_t flags; /* 1: lazy copies */
} taskred_input_t;
typedef struct task_red_input {
    void *shar;
    size_t size;
    void (*init)(void);
    void (*fini)(void *);
    void (*comb)(void *shar, void *copy);
    uint32_t flags;
} task_red_input_t;

/* Item i of clang's array of either layout. */
static taskred_input_t input_at(const void *data, int i, bool old)
{
    if (!old)
        return ((const taskred_input_t *)data)[i];
    const task_red_input_t *o = &((const task_red_input_t *)data)[i];
    return (taskred_input_t){.shar = o->shar, .size = o->size, .init = o->init,
                             .fini = o->fini, .comb = o->comb, .flags = o->flags};
}

static void init_copy(const red_item_t *it, void *copy)
{
    if (it->init == NULL)
        memset(copy, 0, it->size);
    else if (it->two_args)
        ((void (*)(void *, void *))it->init)(copy, it->orig);
    else
        ((void (*)(void *))it->init)(copy);
}

static void *alloc_or_die(size_t size)
{
    void *p = aligned_alloc(COPY_ALIGN, (size + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN);
    if (p == NULL)
        spool__omp_fatal("out of memory for a task reduction's %zu bytes", size);
    return p;
}

/* The team's copies of clang's items, for nth threads. */
static red_shared_t *shared_new(spool__omp_team_t *team, unsigned nth, int num, const void *data,
                                bool old)
{
    red_shared_t *sh = calloc(1, sizeof *sh + (size_t)num * sizeof(red_item_t));
    if (sh == NULL)
        spool__omp_fatal("out of memory for a task reduction");
    sh->team = team;
    sh->nth = nth;
    sh->num = (unsigned)num;
    for (int i = 0; i < num; i++) {
        taskred_input_t in = input_at(data, i, old);
        red_item_t *it = &sh->items[i];
        if (in.comb == NULL)
            spool__omp_fatal("a task reduction item without a combiner");
        it->two_args = !old;
        it->orig = old ? NULL : in.orig != NULL ? in.orig : in.shar;
        it->lazy = in.flags & 1;
        it->size = (in.size + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
        if (it->size == 0)
            it->size = COPY_ALIGN;
        it->init = in.init;
        it->fini = in.fini;
        it->comb = in.comb;
        if (it->lazy) {
            it->slots = calloc(nth, sizeof *it->slots);
            if (it->slots == NULL)
                spool__omp_fatal("out of memory for a task reduction");
            continue;
        }
        it->block = alloc_or_die(it->size * nth);
        for (unsigned j = 0; j < nth; j++)
            init_copy(it, it->block + (size_t)j * it->size);
    }
    return sh;
}

/* Combines every thread's copies into shar[] (all tasks are complete),
 * finalizes and frees them. */
static void shared_end(red_shared_t *sh, void *const *shar)
{
    for (unsigned i = 0; i < sh->num; i++) {
        red_item_t *it = &sh->items[i];
        for (unsigned j = 0; j < sh->nth; j++) {
            void *copy = it->lazy ? atomic_load_explicit(&it->slots[j], memory_order_relaxed)
                                  : it->block + (size_t)j * it->size;
            if (copy == NULL)
                continue;
            it->comb(shar[i], copy);
            if (it->fini != NULL)
                it->fini(copy);
            if (it->lazy)
                free(copy);
        }
        free(it->block);
        free((void *)it->slots);
    }
}

static struct spool__kmp_taskred *handle_new(int num, const void *data, bool old,
                                             spool__omp_tgroup_t *g)
{
    struct spool__kmp_taskred *r = malloc(sizeof *r + (size_t)num * sizeof(void *));
    if (r == NULL)
        spool__omp_fatal("out of memory for a task reduction");
    r->sh = NULL;
    r->ws = NULL;
    r->num = (unsigned)num;
    for (int i = 0; i < num; i++)
        r->shar[i] = input_at(data, i, old).shar;
    r->parent = g->kmp_reductions;
    g->kmp_reductions = r;
    return r;
}

static spool__omp_tgroup_t *open_group(const char *who, int num, const void *data)
{
    if (num < 1 || data == NULL)
        spool__omp_fatal("%s: %d items", who, num);
    spool__omp_tgroup_t *g = spool__omp_task_current(spool__omp_thread())->taskgroup;
    if (g == NULL)
        spool__omp_fatal("%s: no taskgroup is open in this task", who);
    return g;
}

/* task_reduction on a taskgroup (and reduction on a taskloop). */
static void *taskred_init(const char *who, int num, const void *data, bool old)
{
    spool__omp_tgroup_t *g = open_group(who, num, data);
    struct spool__kmp_taskred *r = handle_new(num, data, old, g);
    spool__omp_team_t *team = spool__omp_thread()->ts.team;
    if (team != NULL && team->nthreads > 1)
        r->sh = shared_new(team, team->nthreads, num, data, old);
    return r;
}

SPOOL_OMP_API void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data)
{
    (void)gtid;
    return taskred_init("__kmpc_taskred_init", num, data, false);
}

SPOOL_OMP_API void *__kmpc_task_reduction_init(int32_t gtid, int32_t num, void *data)
{
    (void)gtid;
    return taskred_init("__kmpc_task_reduction_init", num, data, true);
}

/* The registrations the taskgroup g of the calling task cur inherited
 * (where its own end). */
static struct spool__kmp_taskred *inherited(spool__omp_tnode_t *cur, spool__omp_tgroup_t *g)
{
    spool__omp_tgroup_t *outer = g->prev != NULL ? g->prev : cur->group;
    return outer != NULL ? outer->kmp_reductions : NULL;
}

/* Ends the registrations from r to stop: every task is complete. */
static void registrations_end(struct spool__kmp_taskred *r, struct spool__kmp_taskred *stop)
{
    for (struct spool__kmp_taskred *next; r != stop; r = next) {
        next = r->parent;
        if (r->sh != NULL) {
            shared_end(r->sh, r->shar);
            free(r->sh);
        }
        free(r);
    }
}

SPOOL_OMP_API void __kmpc_taskgroup(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_taskgroup_start();
}

SPOOL_OMP_API void __kmpc_end_taskgroup(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    spool__omp_tnode_t *cur = spool__omp_task_current(spool__omp_thread());
    spool__omp_tgroup_t *g = cur->taskgroup;
    struct spool__kmp_taskred *mine = NULL, *stop = NULL;
    if (g != NULL) {
        mine = g->kmp_reductions;
        stop = inherited(cur, g);
    }
    GOMP_taskgroup_end();
    registrations_end(mine, stop);
}

typedef struct modifier_arg {
    spool__omp_team_t *team;
    int num;
    const void *data;
    bool old;
} modifier_arg_t;

/* The copies, in the construct's mem (its last thread frees it). */
static void shared_setup(spool__omp_ws_t *ws, void *arg)
{
    const modifier_arg_t *a = arg;
    ws->mem = shared_new(a->team, a->team->nthreads, a->num, a->data, a->old);
}

/* reduction(task, ...) on a parallel (is_ws 0) or a loop (1): every thread
 * opens a taskgroup and shares one set of copies, kept in a work share of
 * its own beside the construct's. */
static void *modifier_init(const char *who, int num, const void *data, bool old)
{
    GOMP_taskgroup_start();
    spool__omp_tgroup_t *g = open_group(who, num, data);
    struct spool__kmp_taskred *r = handle_new(num, data, old, g);
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_team_t *team = thr->ts.team;
    if (team == NULL || team->nthreads == 1)
        return r;
    modifier_arg_t a = {team, num, data, old};
    r->ws = spool__omp_ws_aside(thr, shared_setup, &a);
    r->sh = r->ws->mem;
    return r;
}

SPOOL_OMP_API void *__kmpc_taskred_modifier_init(spool__kmp_ident_t *loc, int32_t gtid,
                                                 int32_t is_ws, int32_t num, void *data)
{
    (void)loc;
    (void)gtid;
    (void)is_ws;
    return modifier_init("__kmpc_taskred_modifier_init", num, data, false);
}

SPOOL_OMP_API void *__kmpc_task_reduction_modifier_init(spool__kmp_ident_t *loc, int32_t gtid,
                                                        int32_t is_ws, int32_t num, void *data)
{
    (void)loc;
    (void)gtid;
    (void)is_ws;
    return modifier_init("__kmpc_task_reduction_modifier_init", num, data, true);
}

/* The end of reduction(task, ...): each thread waits for its own tasks;
 * the last of the team combines the copies into its own items (its
 * private copies of the construct's reduction, which the construct's
 * reduction then combines into the original). */
SPOOL_OMP_API void __kmpc_task_reduction_modifier_fini(spool__kmp_ident_t *loc, int32_t gtid,
                                                       int32_t is_ws)
{
    (void)loc;
    (void)gtid;
    (void)is_ws;
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_tnode_t *cur = spool__omp_task_current(thr);
    spool__omp_tgroup_t *g = cur->taskgroup;
    struct spool__kmp_taskred *r = g != NULL ? g->kmp_reductions : NULL;
    if (r == NULL || r == inherited(cur, g) || r->parent != inherited(cur, g))
        spool__omp_fatal("__kmpc_task_reduction_modifier_fini: no reduction(task, ...) is open");
    GOMP_taskgroup_end();
    red_shared_t *sh = r->sh;
    if (sh != NULL) {
        /* Acq_rel: the ends form a release sequence; the last acquires
         * every thread's tasks' writes to the copies. */
        if (atomic_fetch_add_explicit(&sh->ended, 1, memory_order_acq_rel) + 1 == sh->nth)
            shared_end(sh, r->shar);
        spool__omp_ws_leave_aside(thr, r->ws);
    }
    free(r);
}

/* The calling thread's copy of the item at data (its shared address, or
 * any thread's copy of it), in the registration tg or an enclosing one
 * (tg NULL: those the calling task is in). */
SPOOL_OMP_API void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tg, void *data)
{
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    struct spool__kmp_taskred *r = tg;
    if (r == NULL) {
        spool__omp_tnode_t *cur = spool__omp_task_current(thr);
        spool__omp_tgroup_t *g = cur->taskgroup != NULL ? cur->taskgroup : cur->group;
        r = g != NULL ? g->kmp_reductions : NULL;
    }
    for (; r != NULL; r = r->parent) {
        red_shared_t *sh = r->sh;
        for (unsigned i = 0; sh == NULL && i < r->num; i++)
            if (data == r->shar[i])
                return data; /* a registration of a team of one: the item itself */
        for (unsigned i = 0; sh != NULL && i < r->num; i++) {
            red_item_t *it = &sh->items[i];
            bool found = data == r->shar[i];
            if (!found && !it->lazy)
                found = (char *)data >= it->block &&
                        (char *)data < it->block + (size_t)sh->nth * it->size;
            for (unsigned j = 0; !found && it->lazy && j < sh->nth; j++)
                found = atomic_load_explicit(&it->slots[j], memory_order_relaxed) == data;
            if (!found)
                continue;
            /* The thread's place in the reduction's team, also from inside
             * regions it opened since (as their thread 0). */
            const spool__omp_ts_t *ts = &thr->ts;
            while (ts->team != sh->team && ts->team != NULL && ts->id == 0)
                ts = &ts->team->prev_ts;
            unsigned id = ts->id;
            if (ts->team != sh->team || id >= sh->nth)
                spool__omp_fatal("__kmpc_task_reduction_get_th_data: a thread outside the "
                                 "reduction's team");
            if (!it->lazy)
                return it->block + (size_t)id * it->size;
            void *copy = atomic_load_explicit(&it->slots[id], memory_order_relaxed);
            if (copy == NULL) {
                copy = alloc_or_die(it->size);
                init_copy(it, copy);
                /* Relaxed: only this thread uses slot id until the end,
                 * which the taskgroup's wait orders after it. */
                atomic_store_explicit(&it->slots[id], copy, memory_order_relaxed);
            }
            return copy;
        }
    }
    /* A team of one has no copies (libomp's rule too). */
    if (thr->ts.team == NULL || thr->ts.team->nthreads == 1)
        return data;
    spool__omp_fatal("__kmpc_task_reduction_get_th_data: %p is no item of an enclosing "
                     "task reduction",
                     data);
}
