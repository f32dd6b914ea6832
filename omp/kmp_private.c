/* The __kmpc_ door's threadprivate variables kept by the runtime (clang's
 * -fnoopenmp-use-tls), the allocator calls of the allocate directive, and
 * the lock calls some compilers make instead of the omp_ ones (omp.md,
 * "The __kmpc_ door"). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "kmp_abi.h"

/* ---- threadprivate ----------------------------------------------------------------------- */

/* A thread's copies, by global id: a table that grows by replacement
 * (readers may hold an old one, so old ones are kept). */
typedef struct tp_table {
    size_t cap;
    struct tp_table *old;
    _Atomic(void *) copies[];
} tp_table_t;

/* A threadprivate variable: its original, which the initial thread (global
 * id 0) uses as its copy, as a program using TLS would; the others' copies
 * start as the original's bytes at its first use, or from its constructor
 * (C++). */
typedef struct tp_var {
    struct tp_var *next;
    void *data;
    size_t size;
    void *image;
    void *(*ctor)(void *);
    void *(*cctor)(void *, void *);
    _Atomic(tp_table_t *) table;
} tp_var_t;

static pthread_mutex_t tp_lock = PTHREAD_MUTEX_INITIALIZER;
static tp_var_t *tp_vars; /* under tp_lock */

static void *alloc_or_die(size_t size, const char *what)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL)
        spool__omp_fatal("%s: out of memory", what);
    return p;
}

/* The variable of data, made at its first call (under tp_lock). */
static tp_var_t *tp_var(void *data, size_t size)
{
    for (tp_var_t *v = tp_vars; v != NULL; v = v->next)
        if (v->data == data) {
            if (v->size == 0)
                v->size = size; /* registered before its first use */
            if (v->image == NULL && v->ctor == NULL && v->cctor == NULL) {
                v->image = alloc_or_die(size, "threadprivate");
                memcpy(v->image, data, size);
            }
            return v;
        }
    tp_var_t *v = calloc(1, sizeof *v);
    if (v == NULL)
        spool__omp_fatal("threadprivate: out of memory");
    v->data = data;
    v->size = size;
    v->image = alloc_or_die(size, "threadprivate");
    memcpy(v->image, data, size);
    v->next = tp_vars;
    tp_vars = v;
    return v;
}

/* Thread gtid's copy of v, made if it has none (under tp_lock). */
static void *tp_copy(tp_var_t *v, int32_t gtid)
{
    if (gtid < 0)
        spool__omp_fatal("threadprivate: global thread id %d", gtid);
    tp_table_t *t = atomic_load_explicit(&v->table, memory_order_relaxed);
    if (t == NULL || (size_t)gtid >= t->cap) {
        size_t cap = t != NULL ? 2 * t->cap : 16;
        while (cap <= (size_t)gtid)
            cap *= 2;
        tp_table_t *n = calloc(1, sizeof *n + cap * sizeof n->copies[0]);
        if (n == NULL)
            spool__omp_fatal("threadprivate: out of memory");
        n->cap = cap;
        n->old = t;
        for (size_t i = 0; t != NULL && i < t->cap; i++)
            atomic_init(&n->copies[i], atomic_load_explicit(&t->copies[i], memory_order_relaxed));
        /* Release pairs with the acquire load in lookup(): the copied
         * slots are seen with the table. */
        atomic_store_explicit(&v->table, n, memory_order_release);
        t = n;
    }
    void *copy = atomic_load_explicit(&t->copies[gtid], memory_order_relaxed);
    if (copy != NULL)
        return copy;
    if (gtid == 0) {
        copy = v->data;
    } else {
        copy = alloc_or_die(v->size, "threadprivate");
        if (v->ctor != NULL)
            v->ctor(copy);
        else if (v->cctor != NULL)
            v->cctor(copy, v->data);
        else
            memcpy(copy, v->image, v->size);
    }
    /* Relaxed: only thread gtid reads its slot outside tp_lock, and it
     * wrote it itself. */
    atomic_store_explicit(&t->copies[gtid], copy, memory_order_relaxed);
    return copy;
}

static void *lookup(tp_var_t *v, int32_t gtid)
{
    /* Acquire pairs with the table's release store in tp_copy. */
    tp_table_t *t = atomic_load_explicit(&v->table, memory_order_acquire);
    if (t == NULL || gtid < 0 || (size_t)gtid >= t->cap)
        return NULL;
    return atomic_load_explicit(&t->copies[gtid], memory_order_relaxed);
}

SPOOL_OMP_API void *__kmpc_threadprivate_cached(spool__kmp_ident_t *loc, int32_t gtid, void *data,
                                                size_t size, void ***cache)
{
    (void)loc;
    /* The compiler's cache word (zero at start) holds the variable. */
    _Atomic(tp_var_t *) *word = (_Atomic(tp_var_t *) *)(void *)cache;
    /* Acquire pairs with the release store below. */
    tp_var_t *v = atomic_load_explicit(word, memory_order_acquire);
    void *copy = v != NULL ? lookup(v, gtid) : NULL;
    if (copy != NULL)
        return copy;
    pthread_mutex_lock(&tp_lock);
    v = tp_var(data, size);
    copy = tp_copy(v, gtid);
    /* Release pairs with the acquire load above: v's fields are seen. */
    atomic_store_explicit(word, v, memory_order_release);
    pthread_mutex_unlock(&tp_lock);
    return copy;
}

SPOOL_OMP_API void *__kmpc_threadprivate(spool__kmp_ident_t *loc, int32_t gtid, void *data,
                                         size_t size)
{
    (void)loc;
    pthread_mutex_lock(&tp_lock);
    void *copy = tp_copy(tp_var(data, size), gtid);
    pthread_mutex_unlock(&tp_lock);
    return copy;
}

/* A C++ threadprivate variable's constructors (before its first use). */
SPOOL_OMP_API void __kmpc_threadprivate_register(spool__kmp_ident_t *loc, void *data,
                                                 void *(*ctor)(void *),
                                                 void *(*cctor)(void *, void *),
                                                 void (*dtor)(void *))
{
    (void)loc;
    (void)dtor; /* copies live as long as the process, as the pool's threads */
    pthread_mutex_lock(&tp_lock);
    tp_var_t *v = calloc(1, sizeof *v);
    if (v == NULL)
        spool__omp_fatal("threadprivate: out of memory");
    v->data = data;
    v->ctor = ctor;
    v->cctor = cctor;
    v->next = tp_vars;
    tp_vars = v;
    pthread_mutex_unlock(&tp_lock);
}

/* ---- allocate ----------------------------------------------------------------------------- */

SPOOL_OMP_API void *__kmpc_alloc(int32_t gtid, size_t size, omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_alloc(size, allocator);
}

SPOOL_OMP_API void *__kmpc_aligned_alloc(int32_t gtid, size_t align, size_t size,
                                         omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_aligned_alloc(align, size, allocator);
}

SPOOL_OMP_API void *__kmpc_calloc(int32_t gtid, size_t nmemb, size_t size,
                                  omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_calloc(nmemb, size, allocator);
}

SPOOL_OMP_API void *__kmpc_realloc(int32_t gtid, void *ptr, size_t size,
                                   omp_allocator_handle_t allocator,
                                   omp_allocator_handle_t free_allocator)
{
    (void)gtid;
    return omp_realloc(ptr, size, allocator, free_allocator);
}

SPOOL_OMP_API void __kmpc_free(int32_t gtid, void *ptr, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_free(ptr, allocator);
}

SPOOL_OMP_API omp_allocator_handle_t __kmpc_init_allocator(int32_t gtid,
                                                          omp_memspace_handle_t memspace,
                                                          int ntraits,
                                                          omp_alloctrait_t traits[])
{
    (void)gtid;
    return omp_init_allocator(memspace, ntraits, traits);
}

SPOOL_OMP_API void __kmpc_destroy_allocator(int32_t gtid, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_destroy_allocator(allocator);
}

SPOOL_OMP_API void __kmpc_set_default_allocator(int32_t gtid, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_set_default_allocator(allocator);
}

SPOOL_OMP_API omp_allocator_handle_t __kmpc_get_default_allocator(int32_t gtid)
{
    (void)gtid;
    return omp_get_default_allocator();
}

/* ---- locks: the program's omp_lock_t (a lock word) and omp_nest_lock_t --------------------- */

#define LOCK_CALL(kmp, call)                                                                       \
    SPOOL_OMP_API void kmp(spool__kmp_ident_t *loc, int32_t gtid, void **lock)                     \
    {                                                                                              \
        (void)loc;                                                                                 \
        (void)gtid;                                                                                \
        call;                                                                                      \
    }

LOCK_CALL(__kmpc_init_lock, omp_init_lock((omp_lock_t *)(void *)lock))
LOCK_CALL(__kmpc_destroy_lock, omp_destroy_lock((omp_lock_t *)(void *)lock))
LOCK_CALL(__kmpc_set_lock, omp_set_lock((omp_lock_t *)(void *)lock))
LOCK_CALL(__kmpc_unset_lock, omp_unset_lock((omp_lock_t *)(void *)lock))
LOCK_CALL(__kmpc_init_nest_lock, spool__kmp_init_nest_lock(lock))
LOCK_CALL(__kmpc_destroy_nest_lock, spool__kmp_destroy_nest_lock(lock))
LOCK_CALL(__kmpc_set_nest_lock, spool__kmp_set_nest_lock(lock))
LOCK_CALL(__kmpc_unset_nest_lock, spool__kmp_unset_nest_lock(lock))

SPOOL_OMP_API int __kmpc_test_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock)
{
    (void)loc;
    (void)gtid;
    return omp_test_lock((omp_lock_t *)(void *)lock);
}

SPOOL_OMP_API int __kmpc_test_nest_lock(spool__kmp_ident_t *loc, int32_t gtid, void **lock)
{
    (void)loc;
    (void)gtid;
    return spool__kmp_test_nest_lock(lock);
}

SPOOL_OMP_API void __kmpc_init_lock_with_hint(spool__kmp_ident_t *loc, int32_t gtid, void **lock,
                                              uintptr_t hint)
{
    (void)loc;
    (void)gtid;
    omp_init_lock_with_hint((omp_lock_t *)(void *)lock, (omp_sync_hint_t)hint);
}

SPOOL_OMP_API void __kmpc_init_nest_lock_with_hint(spool__kmp_ident_t *loc, int32_t gtid,
                                                   void **lock, uintptr_t hint)
{
    (void)loc;
    (void)gtid;
    (void)hint;
    spool__kmp_init_nest_lock(lock);
}
