/* Task dependences among siblings (omp.md, "Dependences"): a table per
 * parent task, from an address to the last task that writes it and the
 * tasks that read it since; a word lock per table, taken by the parent's
 * thread as it makes a task with dependences and by such a task as it
 * completes, never by a task without any.  mutexinoutset and a depobj's
 * kinds other than in are ordered as inout: a stricter order, which the
 * specification allows. */
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "lock.h"
#include "task.h"

#define BUCKETS 256

typedef struct dep {
    void *addr;
    bool out;
} dep_t;

typedef struct spool__omp_dnode {
    spool__omp_tnode_t *task;
    /* Predecessors not complete, plus one while it is being recorded. */
    _Atomic unsigned long npred;
    /* Under the table's lock: */
    struct spool__omp_dnode **succ;
    unsigned nsucc, cap;
    bool done;
    unsigned ndeps;
    dep_t deps[];
} dnode_t;

typedef struct entry {
    void *addr;
    dnode_t *writer;   /* the last task that writes addr, if not complete */
    dnode_t **readers; /* tasks that read it since, not complete */
    unsigned nreaders, cap;
    struct entry *next;
} entry_t;

typedef struct spool__omp_deps {
    _Atomic int lock;
    entry_t *buckets[BUCKETS];
} deps_t;

static void *grow(void *p, unsigned *cap, size_t each)
{
    *cap = *cap == 0 ? 4 : *cap * 2;
    p = realloc(p, (size_t)*cap * each);
    if (p == NULL)
        spool__omp_fatal("out of memory for task dependences");
    return p;
}

static unsigned bucket(const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    return (unsigned)((a >> 3) ^ (a >> 11) ^ (a >> 19)) % BUCKETS;
}

static entry_t *find(deps_t *t, void *addr, bool make)
{
    entry_t **p = &t->buckets[bucket(addr)];
    for (entry_t *e = *p; e != NULL; e = e->next)
        if (e->addr == addr)
            return e;
    if (!make)
        return NULL;
    entry_t *e = calloc(1, sizeof *e);
    if (e == NULL)
        spool__omp_fatal("out of memory for task dependences");
    e->addr = addr;
    e->next = *p;
    *p = e;
    return e;
}

static void drop_entry(deps_t *t, entry_t *e)
{
    for (entry_t **p = &t->buckets[bucket(e->addr)]; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            free(e->readers);
            free(e);
            return;
        }
}

/* s waits for p (unless p is complete). */
static void after(dnode_t *p, dnode_t *s)
{
    if (p == NULL || p == s || p->done)
        return;
    if (p->nsucc == p->cap)
        p->succ = grow(p->succ, &p->cap, sizeof *p->succ);
    p->succ[p->nsucc++] = s;
    /* Relaxed: every change of npred but the last is under the lock; the
     * last is an acq_rel RMW. */
    atomic_fetch_add_explicit(&s->npred, 1, memory_order_relaxed);
}

/* gcc's depend array: {n, n_out, addr...} (out and inout first), or {0, n,
 * n_out, n_mutexinoutset, n_in, addr..., depobj...}. */
static dnode_t *parse(void **depend)
{
    size_t n, nout, nmutex = 0, nin, first;
    if (depend[0] != NULL) {
        n = (size_t)(uintptr_t)depend[0];
        nout = (size_t)(uintptr_t)depend[1];
        nin = n - nout;
        first = 2;
    } else {
        n = (size_t)(uintptr_t)depend[1];
        nout = nin = 0;
        first = 5;
        /* An iterator over an empty range gives {0, 0}: no dependences,
         * and nothing more to read. */
        if (n != 0) {
            nout = (size_t)(uintptr_t)depend[2];
            nmutex = (size_t)(uintptr_t)depend[3];
            nin = (size_t)(uintptr_t)depend[4];
            if (nout + nmutex + nin > n)
                spool__omp_fatal("GOMP_task: a depend array this library does not know");
        }
    }
    dnode_t *d = malloc(sizeof *d + n * sizeof(dep_t));
    if (d == NULL)
        spool__omp_fatal("out of memory for task dependences");
    for (size_t i = 0; i < n; i++) {
        void *a = depend[first + i];
        if (i < nout + nmutex) {
            d->deps[i] = (dep_t){a, true};
        } else if (i < nout + nmutex + nin) {
            d->deps[i] = (dep_t){a, false};
        } else {
            /* A depobj: {address, kind}; kind 1 is in. */
            void **obj = a;
            d->deps[i] = (dep_t){obj[0], (uintptr_t)obj[1] != 1};
        }
    }
    d->ndeps = (unsigned)n;
    return d;
}

bool spool__omp_deps_add(spool__omp_tnode_t *parent, spool__omp_tnode_t *node, void **depend)
{
    dnode_t *d = parse(depend);
    d->task = node;
    atomic_init(&d->npred, 1);
    d->succ = NULL;
    d->nsucc = d->cap = 0;
    d->done = false;
    node->dep = d;
    if (parent->deps == NULL) {
        /* Made by the parent's thread before any child with dependences
         * exists; the children reach it through their queue's lock. */
        parent->deps = calloc(1, sizeof(deps_t));
        if (parent->deps == NULL)
            spool__omp_fatal("out of memory for task dependences");
    }
    deps_t *t = parent->deps;
    spool__omp_lock_word(&t->lock);
    for (unsigned i = 0; i < d->ndeps; i++) {
        entry_t *e = find(t, d->deps[i].addr, true);
        after(e->writer, d);
        if (!d->deps[i].out) {
            if (e->nreaders == e->cap)
                e->readers = grow(e->readers, &e->cap, sizeof *e->readers);
            e->readers[e->nreaders++] = d;
            continue;
        }
        for (unsigned r = 0; r < e->nreaders; r++)
            after(e->readers[r], d);
        e->nreaders = 0;
        e->writer = d;
    }
    spool__omp_unlock_word(&t->lock);
    /* Acq_rel: of this and the predecessors' completions, the one that
     * leaves 0 sees the others' work. */
    return atomic_fetch_sub_explicit(&d->npred, 1, memory_order_acq_rel) != 1;
}

unsigned long spool__omp_deps_pending(const spool__omp_tnode_t *node)
{
    /* Seq-cst (an acquire): pairs with the predecessors' seq-cst
     * decrements (W1 for a task waited for in place). */
    return atomic_load_explicit(&node->dep->npred, memory_order_seq_cst);
}

void spool__omp_deps_done(spool__omp_tnode_t *node, unsigned self)
{
    dnode_t *d = node->dep;
    deps_t *t = node->parent->deps;
    unsigned nready = 0;
    spool__omp_lock_word(&t->lock);
    d->done = true;
    for (unsigned i = 0; i < d->nsucc; i++) {
        dnode_t *s = d->succ[i];
        /* A successor waited for in place may go (and end) as soon as its
         * count is 0: read it before. */
        spool__omp_tnode_t *task = s->task;
        bool waited = task->waited;
        /* Seq-cst (an acq_rel, as in spool__omp_deps_add): for a task
         * waited for in place, the write its maker waits for (W1). */
        if (atomic_fetch_sub_explicit(&s->npred, 1, memory_order_seq_cst) != 1)
            continue;
        if (!waited)
            d->succ[nready++] = s;
        else /* its maker waits for it: wake it (the task's address only) */
            spool__omp_task_wake(node->team, self, task);
    }
    for (unsigned i = 0; i < d->ndeps; i++) {
        entry_t *e = find(t, d->deps[i].addr, false);
        if (e == NULL)
            continue;
        if (e->writer == d)
            e->writer = NULL;
        for (unsigned r = 0; r < e->nreaders; r++)
            if (e->readers[r] == d)
                e->readers[r--] = e->readers[--e->nreaders];
        if (e->writer == NULL && e->nreaders == 0)
            drop_entry(t, e);
    }
    spool__omp_unlock_word(&t->lock);
    for (unsigned i = 0; i < nready; i++)
        spool__omp_task_ready(d->succ[i]->task);
    free(d->succ);
    free(d);
    node->dep = NULL;
}

void spool__omp_deps_free(struct spool__omp_deps *t)
{
    for (unsigned b = 0; b < BUCKETS; b++)
        while (t->buckets[b] != NULL) {
            entry_t *e = t->buckets[b];
            t->buckets[b] = e->next;
            free(e->readers);
            free(e);
        }
    free(t);
}
