/* Mutual exclusion (omp.md, "Locks"): critical (unnamed and named), the
 * atomic construct's fallback lock, and the omp_ locks, on one word lock
 * that blocks on a futex (Linux; elsewhere it yields). */
#include <sched.h>
#include <stdalign.h>

#include "env.h"
#include "gomp_abi.h"
#include "lock.h"
#include "team.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static void futex_wait(_Atomic int *w, int value)
{
    syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *w)
{
    syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#else
static void futex_wait(_Atomic int *w, int value)
{
    (void)w;
    (void)value;
    sched_yield();
}

static void futex_wake(_Atomic int *w)
{
    (void)w;
}
#endif

static bool try_lock(_Atomic int *w)
{
    int free_word = 0;
    /* Acquire pairs with the release exchange in spool__omp_unlock_word:
     * the last holder's critical section happened before ours. */
    return atomic_load_explicit(w, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(w, &free_word, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void spool__omp_lock_word(_Atomic int *w)
{
    if (try_lock(w))
        return;
    for (int i = 0; i < 100; i++) {
        spool__cpu_relax();
        if (try_lock(w))
            return;
    }
    /* 2: held, and someone may sleep on it.  Acquire: as in try_lock. */
    while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0)
        futex_wait(w, 2);
}

void spool__omp_unlock_word(_Atomic int *w)
{
    /* Release pairs with the acquire of the next holder's CAS or
     * exchange. */
    if (atomic_exchange_explicit(w, 0, memory_order_release) == 2)
        futex_wake(w);
}

/* ---- critical and atomic ------------------------------------------------------------ */

static _Atomic int critical_lock, atomic_lock;

SPOOL_OMP_API void GOMP_critical_start(void)
{
    spool__omp_lock_word(&critical_lock);
}

SPOOL_OMP_API void GOMP_critical_end(void)
{
    spool__omp_unlock_word(&critical_lock);
}

/* A named critical's pointer-sized common symbol, zero at start, holds
 * its lock word. */
_Static_assert(sizeof(_Atomic int) <= sizeof(void *) && alignof(_Atomic int) <= alignof(void *),
               "a named critical's lock fits its pointer");

SPOOL_OMP_API void GOMP_critical_name_start(void **pptr)
{
    spool__omp_lock_word((_Atomic int *)(void *)pptr);
}

SPOOL_OMP_API void GOMP_critical_name_end(void **pptr)
{
    spool__omp_unlock_word((_Atomic int *)(void *)pptr);
}

SPOOL_OMP_API void GOMP_atomic_start(void)
{
    spool__omp_lock_word(&atomic_lock);
}

SPOOL_OMP_API void GOMP_atomic_end(void)
{
    spool__omp_unlock_word(&atomic_lock);
}

/* ---- omp_lock_t ---------------------------------------------------------------------- */

/* gcc's omp.h: 4 bytes aligned to 4, and 8 + sizeof(void *) aligned to a
 * pointer (Linux); tests/omp checks them too. */
_Static_assert(sizeof(omp_lock_t) == sizeof(_Atomic int) &&
                   alignof(omp_lock_t) >= alignof(_Atomic int),
               "omp_lock_t is a lock word");

typedef struct nest_lock {
    _Atomic int word;
    int count;               /* the owner's only */
    _Atomic(void *) owner;   /* the task that holds it */
} nest_lock_t;

_Static_assert(sizeof(omp_nest_lock_t) >= sizeof(nest_lock_t) &&
                   alignof(omp_nest_lock_t) >= alignof(nest_lock_t),
               "omp_nest_lock_t holds a nest lock");

static _Atomic int *word(omp_lock_t *lock)
{
    return (_Atomic int *)(void *)lock;
}

SPOOL_OMP_API void omp_init_lock(omp_lock_t *lock)
{
    atomic_init(word(lock), 0);
}

SPOOL_OMP_API void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint; /* a hint: the lock is the same for every one */
    omp_init_lock(lock);
}

SPOOL_OMP_API void omp_destroy_lock(omp_lock_t *lock)
{
    if (atomic_load_explicit(word(lock), memory_order_relaxed) != 0)
        spool__omp_fatal("omp_destroy_lock: the lock at %p is held", (void *)lock);
}

SPOOL_OMP_API void omp_set_lock(omp_lock_t *lock)
{
    spool__omp_lock_word(word(lock));
}

SPOOL_OMP_API void omp_unset_lock(omp_lock_t *lock)
{
    if (atomic_load_explicit(word(lock), memory_order_relaxed) == 0)
        spool__omp_fatal("omp_unset_lock: the lock at %p is not held", (void *)lock);
    spool__omp_unlock_word(word(lock));
}

SPOOL_OMP_API int omp_test_lock(omp_lock_t *lock)
{
    return try_lock(word(lock));
}

/* ---- omp_nest_lock_t: owned by a task ---------------------------------------------------- */

static nest_lock_t *nest(omp_nest_lock_t *lock)
{
    return (nest_lock_t *)(void *)lock;
}

static void *current_task(void)
{
    return spool__omp_thread()->task;
}

SPOOL_OMP_API void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest(lock);
    atomic_init(&l->word, 0);
    l->count = 0;
    atomic_init(&l->owner, NULL);
}

SPOOL_OMP_API void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint;
    omp_init_nest_lock(lock);
}

SPOOL_OMP_API void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    if (atomic_load_explicit(&nest(lock)->word, memory_order_relaxed) != 0)
        spool__omp_fatal("omp_destroy_nest_lock: the lock at %p is held", (void *)lock);
}

/* Relaxed loads and stores of owner: only the holder stores it, and a
 * task compares it with itself (it reads its own store, or another
 * task's, never itself, while another holds it). */
SPOOL_OMP_API void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest(lock);
    void *me = current_task();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
        l->count++;
        return;
    }
    spool__omp_lock_word(&l->word);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    l->count = 1;
}

SPOOL_OMP_API void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest(lock);
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != current_task())
        spool__omp_fatal("omp_unset_nest_lock: the lock at %p is not held by this task",
                         (void *)lock);
    if (--l->count > 0)
        return;
    atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
    spool__omp_unlock_word(&l->word);
}

SPOOL_OMP_API int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest(lock);
    void *me = current_task();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me)
        return ++l->count;
    if (!try_lock(&l->word))
        return 0;
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    l->count = 1;
    return 1;
}
