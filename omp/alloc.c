/* OpenMP 5.0's memory allocators on the host: every memory space is the
 * heap; an allocator of one's own honours alignment, pool_size and
 * fallback (pinned, partition and access are accepted and change
 * nothing).  Each block carries a header, so that omp_free and
 * omp_realloc need no allocator to find it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gomp_abi.h"
#include "omp_impl.h"

typedef struct allocator {
    size_t alignment;
    size_t pool_size;          /* 0: no limit */
    _Atomic size_t used;
    uintptr_t fallback;        /* an omp_atv_*_fb value */
    omp_allocator_handle_t fb; /* fallback allocator_fb's */
} allocator_t;

/* In front of every block. */
typedef struct header {
    void *base;          /* what malloc returned */
    size_t size;         /* what was asked */
    allocator_t *custom; /* NULL for a predefined allocator */
} header_t;

static _Thread_local omp_allocator_handle_t default_allocator = omp_default_mem_alloc;

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
    if (a == omp_null_allocator)
        a = default_allocator;
    allocator_t *c = custom_of(a);
    if (c != NULL && c->alignment > alignment)
        alignment = c->alignment;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    if ((alignment & (alignment - 1)) != 0 || size > SIZE_MAX - alignment - sizeof(header_t))
        return NULL;
    if (c != NULL && c->pool_size != 0) {
        /* Relaxed: a budget, no data rides on it. */
        size_t used = atomic_fetch_add_explicit(&c->used, size, memory_order_relaxed);
        if (used + size > c->pool_size) {
            atomic_fetch_sub_explicit(&c->used, size, memory_order_relaxed);
            return fall_back(c, alignment, size, zero);
        }
    }
    size_t total = size + alignment + sizeof(header_t);
    char *base = zero ? calloc(1, total) : malloc(total);
    if (base == NULL) {
        if (c != NULL) {
            if (c->pool_size != 0)
                atomic_fetch_sub_explicit(&c->used, size, memory_order_relaxed);
            return fall_back(c, alignment, size, zero);
        }
        return NULL;
    }
    uintptr_t p = ((uintptr_t)(base + sizeof(header_t)) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    header_t *h = (header_t *)p - 1;
    h->base = base;
    h->size = size;
    h->custom = c;
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
    if (size != 0 && nmemb > SIZE_MAX / size)
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
        atomic_fetch_sub_explicit(&h->custom->used, h->size, memory_order_relaxed);
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
    void *p = omp_alloc(size, allocator);
    if (p == NULL)
        return NULL;
    size_t old = ((header_t *)ptr - 1)->size;
    memcpy(p, ptr, old < size ? old : size);
    omp_free(ptr, free_allocator);
    return p;
}

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
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        switch (traits[i].key) {
        case omp_atk_alignment:
            if (v == 0 || (v & (v - 1)) != 0)
                goto bad;
            c->alignment = v;
            break;
        case omp_atk_pool_size:
            c->pool_size = v == (uintptr_t)omp_atv_default ? 0 : v;
            break;
        case omp_atk_fallback:
            if (v != omp_atv_default_mem_fb && v != omp_atv_null_fb && v != omp_atv_abort_fb &&
                v != omp_atv_allocator_fb)
                goto bad;
            c->fallback = v;
            break;
        case omp_atk_fb_data:
            c->fb = (omp_allocator_handle_t)v;
            break;
        case omp_atk_sync_hint:
        case omp_atk_access:
        case omp_atk_pinned:
        case omp_atk_partition:
            break;
        default:
            goto bad;
        }
    }
    if (c->fallback == omp_atv_allocator_fb && c->fb == omp_null_allocator)
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
    default_allocator = allocator != omp_null_allocator ? allocator : omp_default_mem_alloc;
}

SPOOL_OMP_API omp_allocator_handle_t omp_get_default_allocator(void)
{
    return default_allocator;
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
