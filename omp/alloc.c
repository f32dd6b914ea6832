/* OpenMP 5.0's memory allocators on the host: every memory space is the
 * heap; an allocator of one's own honours alignment, pool_size and
 * fallback (pinned, partition and access are accepted and change
 * nothing).  Each block carries a header, so that omp_free and
 * omp_realloc need no allocator to find it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gomp_abi.h"
#include "team.h"

typedef struct allocator {
    size_t alignment;
    size_t pool_size;          /* 0: no limit */
    _Atomic size_t used;
    uintptr_t fallback;        /* an omp_atv_*_fb value */
    omp_allocator_handle_t fb; /* fallback allocator_fb's */
} allocator_t;

/* In front of every block. */
typedef struct header {
    void *base;                 /* what malloc returned */
    size_t size;                /* what was asked */
    size_t charged;             /* what its pool was charged: the whole block */
    allocator_t *custom;        /* NULL for a predefined allocator */
    omp_allocator_handle_t allocator; /* the allocator it came from */
} header_t;

/* def-allocator-var: the thread's team state's (a team's threads start
 * with thread 0's), or OMP_ALLOCATOR's while that is null. */
static omp_allocator_handle_t default_of_thread(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.def_allocator != omp_null_allocator)
        return (omp_allocator_handle_t)thr->ts.def_allocator;
    return (omp_allocator_handle_t)spool__omp_env.def_allocator;
}

static allocator_t *custom_of(omp_allocator_handle_t a)
{
    return (uintptr_t)a > omp_thread_mem_alloc ? (allocator_t *)(uintptr_t)a : NULL;
}

static void *alloc_aligned(size_t alignment, size_t size, omp_allocator_handle_t a, bool zero);

/* What an allocator of one's own does when it has no room. */
static void *fall_back(allocator_t *c, size_t alignment, size_t size, bool zero)
{
    switch (c->fallback) {
    case omp_atv_null_fb:
        return NULL;
    case omp_atv_abort_fb:
        spool__omp_fatal("an OpenMP allocator with abort_fb has no room for %zu bytes", size);
    case omp_atv_allocator_fb:
        return alloc_aligned(alignment, size, c->fb, zero);
    default:
        return alloc_aligned(alignment, size, omp_default_mem_alloc, zero);
    }
}

static void *alloc_aligned(size_t alignment, size_t size, omp_allocator_handle_t a, bool zero)
{
    /* As libgomp: nothing to allocate is no block. */
    if (size == 0)
        return NULL;
    if (a == omp_null_allocator)
        a = default_of_thread();
    allocator_t *c = custom_of(a);
    if (c != NULL && c->alignment > alignment)
        alignment = c->alignment;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    if ((alignment & (alignment - 1)) != 0 || size > SIZE_MAX - alignment - sizeof(header_t))
        return NULL;
    /* The pool pays for the whole block, its header and alignment too. */
    size_t total = size + alignment + sizeof(header_t);
    if (c != NULL && c->pool_size != 0) {
        /* Relaxed: a budget, no data rides on it. */
        size_t used = atomic_fetch_add_explicit(&c->used, total, memory_order_relaxed);
        if (used + total > c->pool_size || used + total < used) {
            atomic_fetch_sub_explicit(&c->used, total, memory_order_relaxed);
            return fall_back(c, alignment, size, zero);
        }
    }
    char *base = zero ? calloc(1, total) : malloc(total);
    if (base == NULL) {
        if (c != NULL) {
            if (c->pool_size != 0)
                atomic_fetch_sub_explicit(&c->used, total, memory_order_relaxed);
            return fall_back(c, alignment, size, zero);
        }
        return NULL;
    }
    uintptr_t p = ((uintptr_t)(base + sizeof(header_t)) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    header_t *h = (header_t *)p - 1;
    h->base = base;
    h->size = size;
    h->charged = total;
    h->custom = c;
    h->allocator = a;
    return (void *)p;
}

SPOOL_OMP_API void *omp_aligned_alloc(size_t alignment, size_t size,
                                      omp_allocator_handle_t allocator)
{
    return alloc_aligned(alignment, size, allocator, false);
}

SPOOL_OMP_API void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
    return alloc_aligned(1, size, allocator, false);
}

SPOOL_OMP_API void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                       omp_allocator_handle_t allocator)
{
    if (size == 0 || nmemb == 0 || nmemb > SIZE_MAX / size)
        return NULL;
    return alloc_aligned(alignment, nmemb * size, allocator, true);
}

SPOOL_OMP_API void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
    return omp_aligned_calloc(1, nmemb, size, allocator);
}

SPOOL_OMP_API void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
    (void)allocator; /* the header says */
    if (ptr == NULL)
        return;
    header_t *h = (header_t *)ptr - 1;
    if (h->custom != NULL && h->custom->pool_size != 0)
        atomic_fetch_sub_explicit(&h->custom->used, h->charged, memory_order_relaxed);
    free(h->base);
}

SPOOL_OMP_API void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                                omp_allocator_handle_t free_allocator)
{
    if (ptr == NULL)
        return omp_alloc(size, allocator);
    if (size == 0) {
        omp_free(ptr, free_allocator);
        return NULL;
    }
    /* No allocator named: the block's own (libgomp's). */
    header_t *h = (header_t *)ptr - 1;
    if (allocator == omp_null_allocator)
        allocator = h->allocator;
    /* Within one pool the new block may take the old one's room, as a
     * realloc in place would. */
    allocator_t *c = custom_of(allocator);
    bool same_pool = c != NULL && c == h->custom && c->pool_size != 0;
    if (same_pool)
        atomic_fetch_sub_explicit(&c->used, h->charged, memory_order_relaxed);
    void *p = omp_alloc(size, allocator);
    if (p == NULL) {
        if (same_pool)
            atomic_fetch_add_explicit(&c->used, h->charged, memory_order_relaxed);
        return NULL;
    }
    memcpy(p, ptr, h->size < size ? h->size : size);
    if (same_pool)
        free(h->base);
    else
        omp_free(ptr, free_allocator);
    return p;
}

/* A trait's value among the allowed ones (omp_atv_default: the first). */
static bool trait_value(uintptr_t v, const uintptr_t *allowed, size_t n, uintptr_t *out)
{
    if (v == (uintptr_t)omp_atv_default) {
        *out = allowed[0];
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (v == allowed[i]) {
            *out = v;
            return true;
        }
    return false;
}

#define ALLOWED(v, out, ...)                                                                       \
    trait_value((v), (const uintptr_t[]){__VA_ARGS__},                                             \
                sizeof((const uintptr_t[]){__VA_ARGS__}) / sizeof(uintptr_t), (out))

SPOOL_OMP_API omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace,
                                                        int ntraits,
                                                        const omp_alloctrait_t traits[])
{
    if ((uintptr_t)memspace > omp_low_lat_mem_space || ntraits < 0)
        return omp_null_allocator;
    allocator_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return omp_null_allocator;
    c->alignment = 1;
    c->fallback = omp_atv_default_mem_fb;
    uintptr_t pinned = omp_atv_false, ignored;
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        bool ok = true;
        /* The values libgomp accepts; other traits or values give no
         * allocator. */
        switch (traits[i].key) {
        case omp_atk_alignment:
            if (v == (uintptr_t)omp_atv_default)
                v = 1;
            ok = v != 0 && (v & (v - 1)) == 0;
            c->alignment = v;
            break;
        case omp_atk_pool_size:
            c->pool_size = v == (uintptr_t)omp_atv_default ? 0 : v;
            break;
        case omp_atk_fallback:
            ok = ALLOWED(v, &c->fallback, omp_atv_default_mem_fb, omp_atv_null_fb,
                         omp_atv_abort_fb, omp_atv_allocator_fb);
            break;
        case omp_atk_fb_data:
            c->fb = (omp_allocator_handle_t)v;
            break;
        case omp_atk_sync_hint:
            ok = ALLOWED(v, &ignored, omp_atv_contended, omp_atv_uncontended,
                         omp_atv_serialized, omp_atv_private);
            break;
        case omp_atk_access:
            ok = ALLOWED(v, &ignored, omp_atv_all, omp_atv_cgroup, omp_atv_pteam,
                         omp_atv_thread);
            break;
        case omp_atk_pinned:
            ok = ALLOWED(v, &pinned, omp_atv_false, omp_atv_true);
            break;
        case omp_atk_partition:
            ok = ALLOWED(v, &ignored, omp_atv_environment, omp_atv_nearest, omp_atv_blocked,
                         omp_atv_interleaved);
            break;
        default:
            ok = false;
            break;
        }
        if (!ok)
            goto bad;
    }
    /* As libgomp 12: no pinned memory, no high-bandwidth memory space. */
    if (pinned == omp_atv_true || memspace == omp_high_bw_mem_space)
        goto bad;
    return (omp_allocator_handle_t)(uintptr_t)c;
bad:
    free(c);
    return omp_null_allocator;
}

SPOOL_OMP_API void omp_destroy_allocator(omp_allocator_handle_t allocator)
{
    free(custom_of(allocator));
}

SPOOL_OMP_API void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
    spool__omp_thread()->ts.def_allocator = (uintptr_t)allocator;
}

SPOOL_OMP_API omp_allocator_handle_t omp_get_default_allocator(void)
{
    return default_of_thread();
}

/* The allocate clause and directive. */
SPOOL_OMP_API void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    void *p = alloc_aligned(alignment, size, (omp_allocator_handle_t)allocator, false);
    if (p == NULL && size != 0)
        spool__omp_fatal("GOMP_alloc: out of memory for %zu bytes", size);
    return p;
}

SPOOL_OMP_API void GOMP_free(void *ptr, uintptr_t allocator)
{
    omp_free(ptr, (omp_allocator_handle_t)allocator);
}
