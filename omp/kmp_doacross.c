/* Doacross loops through the __kmpc_ door (omp.md, "The __kmpc_ door"):
 * clang calls __kmpc_doacross_init before the loop's own init, with the
 * bounds of every ordered dimension, and names iterations by their
 * indices in those bounds.  With collapse, the iterations of one outermost
 * index may run on several threads, so, unlike gcc's (doacross.c), a bit
 * per iteration says whether it is posted; the bits live in a work share
 * of their own, taken before the loop's and left after it. */
#include <stdlib.h>

#include "env.h"
#include "kmp_abi.h"
#include "team.h"
#include "wait.h"
#include "work.h"

typedef unsigned long long u64;

/* The most iterations a doacross loop may have (a bit each). */
#define MAX_ITERS (1ull << 40)
/* The most ordered dimensions. */
#define MAX_DIMS 64

/* A thread's view of its doacross loop: the bits' work share and each
 * dimension's bounds and iteration count. */
typedef struct kmp_doacross {
    spool__omp_ws_t *ws;
    unsigned ndims;
    spool__kmp_dim_t dims[MAX_DIMS];
    u64 counts[MAX_DIMS];
} kmp_doacross_t;

static u64 dim_count(const spool__kmp_dim_t *d)
{
    if (d->st == 0)
        spool__omp_fatal("__kmpc_doacross_init: a dimension with increment 0");
    if (d->st > 0)
        return d->up < d->lo ? 0 : ((u64)d->up - (u64)d->lo) / (u64)d->st + 1;
    return d->lo < d->up ? 0 : ((u64)d->lo - (u64)d->up) / (0 - (u64)d->st) + 1;
}

static void bits_new(spool__omp_ws_t *ws, void *arg)
{
    u64 total = *(const u64 *)arg;
    ws->doacross = calloc(total / 64 + 1, sizeof(u64));
    if (ws->doacross == NULL)
        spool__omp_fatal("out of memory for a doacross loop of %llu iterations", total);
}

SPOOL_OMP_API void __kmpc_doacross_init(spool__kmp_ident_t *loc, int32_t gtid, int32_t num_dims,
                                        const spool__kmp_dim_t *dims)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.kmp_doacross != NULL)
        spool__omp_fatal("__kmpc_doacross_init: a doacross loop inside another");
    if (num_dims < 1 || num_dims > MAX_DIMS)
        spool__omp_fatal("__kmpc_doacross_init: %d ordered dimensions (1 to %d are served)",
                         num_dims, MAX_DIMS);
    /* A team of one runs the iterations in order: every sink is done. */
    if (thr->ts.team == NULL || thr->ts.team->nthreads == 1)
        return;
    kmp_doacross_t *d = malloc(sizeof *d);
    if (d == NULL)
        spool__omp_fatal("out of memory for a doacross loop");
    d->ndims = (unsigned)num_dims;
    u64 total = 1;
    for (unsigned i = 0; i < d->ndims; i++) {
        d->dims[i] = dims[i];
        d->counts[i] = dim_count(&dims[i]);
        if (__builtin_mul_overflow(total, d->counts[i], &total) || total > MAX_ITERS)
            spool__omp_fatal("__kmpc_doacross_init: a doacross loop of more than 2^40 iterations");
    }
    /* The loop's own work share comes next: this one is kept aside. */
    d->ws = spool__omp_ws_aside(thr, bits_new, &total);
    thr->ts.kmp_doacross = d;
}

/* The bit of the iteration vec names, or false if it is outside the loop
 * (a sink there waits for nothing). */
static bool iteration(const kmp_doacross_t *d, const int64_t *vec, u64 *bit)
{
    u64 flat = 0;
    for (unsigned i = 0; i < d->ndims; i++) {
        const spool__kmp_dim_t *dim = &d->dims[i];
        u64 k;
        if (dim->st > 0) {
            if (vec[i] < dim->lo || vec[i] > dim->up)
                return false;
            k = ((u64)vec[i] - (u64)dim->lo) / (u64)dim->st;
        } else {
            if (vec[i] > dim->lo || vec[i] < dim->up)
                return false;
            k = ((u64)dim->lo - (u64)vec[i]) / (0 - (u64)dim->st);
        }
        flat = flat * d->counts[i] + k;
    }
    *bit = flat;
    return true;
}

typedef struct sink {
    _Atomic u64 *word;
    u64 mask;
} sink_t;

static bool posted(const void *arg)
{
    const sink_t *s = arg;
    /* Seq-cst (an acquire): pairs with the fetch_or in
     * __kmpc_doacross_post: the sink's work is visible. */
    return (atomic_load_explicit(s->word, memory_order_seq_cst) & s->mask) != 0;
}

/* The word and bit of the calling thread's doacross loop for the
 * iteration vec names; false if none (no loop, a team of one, or an
 * iteration outside the loop, which a sink waits for nothing). */
static bool bit_of(spool__omp_thread_t *thr, const int64_t *vec, sink_t *s)
{
    const kmp_doacross_t *d = thr->ts.kmp_doacross;
    u64 bit;
    if (d == NULL || !iteration(d, vec, &bit))
        return false;
    s->word = &d->ws->doacross[bit / 64];
    s->mask = 1ull << (bit % 64);
    return true;
}

SPOOL_OMP_API void __kmpc_doacross_wait(spool__kmp_ident_t *loc, int32_t gtid, const int64_t *vec)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    sink_t s;
    if (bit_of(thr, vec, &s) && !posted(&s))
        spool__omp_wait(thr->ts.team, thr->ts.id, s.word, posted, &s);
}

SPOOL_OMP_API void __kmpc_doacross_post(spool__kmp_ident_t *loc, int32_t gtid, const int64_t *vec)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    sink_t s;
    if (!bit_of(thr, vec, &s))
        return;
    /* Seq-cst (a release): pairs with the load in posted(): the
     * iteration's work before its depend(source) is visible to its sinks
     * (W1, with the wake). */
    atomic_fetch_or_explicit(s.word, s.mask, memory_order_seq_cst);
    spool__omp_wake(thr->ts.team, thr->ts.id, s.word);
}

SPOOL_OMP_API void __kmpc_doacross_fini(spool__kmp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    spool__omp_thread_t *thr = spool__omp_thread();
    kmp_doacross_t *d = thr->ts.kmp_doacross;
    if (d == NULL)
        return;
    thr->ts.kmp_doacross = NULL;
    spool__omp_ws_leave_aside(thr, d->ws);
    free(d);
}
