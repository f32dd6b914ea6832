/*
 * spool_inline.h: spool_join_inline, a spool_join compiled into its caller,
 * and spool_fork_inline / spool_sync_inline, the same join split in two.
 *
 * spool_join is a call into the library, and part of its fork path is the
 * call itself, the NULL tests and the saving of registers.
 * spool_join_inline does the same join with the common path (push b, run
 * a, pop b, run b) in the caller's own code, and leaves through spool_join
 * or an out-of-line function of the library for everything else (outside
 * a pool, b stolen, a full buffer, a thief asking for work).  It behaves
 * as spool_join in every way but one: with a library built with
 * SPOOL_STATS, a b that the caller runs itself is not counted in
 * jobs_executed.  bench/ (spool-peer and spool-peer-inline, fib) compares
 * the two.
 *
 * spool_fork_inline and spool_sync_inline take the join apart: the fork
 * offers b to thieves, the caller then runs its own code (a, called
 * directly), and the sync tells it whether b is still its own to run.  Then
 * the caller runs b itself, directly too, so that neither half goes through
 * a function pointer and a void * in the common case: arguments and results
 * stay in registers, as in a plain recursive call.  b(arg_b) is called only
 * if a thief takes it (or the library finds it while it waits).
 *
 * The inline ABI.  A program built with this header reads a worker's deque
 * and writes a join's job itself, so it is tied to the library's layout of
 * both.  That layout has one version, SPOOL_INLINE_ABI, and every name
 * below that the program and the library share ends in it (_v3): the
 * spool_fork_t and join-frame layouts, the deque's owner fields, and the
 * contract of every library function named here.  Any change to one of
 * them gives all of them the next version's names, so a library with
 * another layout does not load a program built with this one (undefined
 * symbol) instead of running it wrong.  The library checks at build time
 * that its own structs match the ones below; the test suite checks that
 * the names here and the library's exports carry the same version.
 * Programs that want no such tie use spool_join.
 *
 * Compilers: gcc and clang (the header uses their __atomic built-ins and
 * __thread); elsewhere spool_join_inline is spool_join, and the fork and
 * the sync call the library for every step.  C99 or later, C++11 or later.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_INLINE_H
#define SPOOL_INLINE_H

#include <stdint.h>

#include "spool.h"

/* The version of the inline ABI: the suffix _vN of every spool__ name
 * below. */
#define SPOOL_INLINE_ABI 3

#ifdef __cplusplus
extern "C" {
#endif

/* Internal to spool: do not use these names directly. */

/* A job as the library's deques hold it; spool_join's b is one. */
struct spool__job;

/* b of a join, on the joining worker's stack (src/join/join.c's join_job_t).
 * latch is 0 until a thief that ran b sets it.  A fork that pushed nothing
 * (outside any pool, or no room) leaves execute NULL. */
struct spool__join_frame_v3 {
    void (*execute)(struct spool__job *job);
    spool_fn fn;
    void *arg;
    int latch;
};

/* A thief runs b through this. */
SPOOL_API void spool__join_execute_v3(struct spool__job *job);
/* The fork's fast push found no room (or this thread is outside any pool):
 * pushes b the slow way, or leaves execute NULL if it cannot. */
SPOOL_API void spool__fork_slow_v3(struct spool__join_frame_v3 *b);
/* The sync's pop at the fork's index did not give b back (it popped
 * nothing): 1 if b is still the caller's to run, 0 once b has run. */
SPOOL_API int spool__sync_finish_v3(struct spool__join_frame_v3 *b);

/*
 * A fork in progress (spool_fork_inline to spool_sync_inline), on the
 * forking thread's stack.  Its fields are the library's.
 */
typedef struct spool_fork {
    struct spool__join_frame_v3 spool__frame;
    /* gcc and clang: where the fork pushed b. */
    int64_t spool__index;
} spool_fork_t;

#if defined(__GNUC__)
#define SPOOL__INLINE static inline __attribute__((always_inline))
#else
#define SPOOL__INLINE static inline
#endif

/* b's job, built in frame: for every compiler, so that the fork's job is
 * one text. */
SPOOL__INLINE void spool__join_frame_init_v3(struct spool__join_frame_v3 *frame, spool_fn b,
                                             void *arg_b)
{
#if defined(__GNUC__)
    /* Atomic (relaxed) only so that gcc stores it alone instead of packing
     * the two words into an SSE register, which takes more instructions. */
    __atomic_store_n(&frame->execute, &spool__join_execute_v3, __ATOMIC_RELAXED);
#else
    frame->execute = spool__join_execute_v3;
#endif
    frame->fn = b;
    frame->arg = arg_b;
    frame->latch = 0;
}

#if defined(__GNUC__)

/* The owner's part of a worker's deque (src/deque/deque.h, from bottom on):
 * jobs at indices below bottom; the fast push needs bottom < limit, the
 * fast pop bottom - 1 >= floor.  Between floor and limit the slots lie in
 * one run of the buffer (a window, deque.md): the slot of index i is at
 * address base + i * sizeof(struct spool__job *) there. */
struct spool__fork_owner_v3 {
    int64_t bottom;
    int64_t limit;
    int64_t floor;
    uintptr_t base;
};

/* The deque of the worker running on this thread.  Outside any pool, a
 * stand-in whose limit is below every index, so that the fast push fails
 * there and sends the join to the library without a test of its own.
 * Initial-exec: README.md ("ABI") says what that means for dlopen. */
SPOOL_API extern __thread struct spool__fork_owner_v3 *spool__tls_fork_v3
    __attribute__((tls_model("initial-exec")));
/* The fast push found no room (or b must be public, or this thread is
 * outside any pool): joins the slow way. */
SPOOL_API void spool__join_slow_v3(struct spool__join_frame_v3 *b, spool_fn a, void *arg_a);
/* a has returned and the fast pop did not give b back (popped: what it
 * gave, NULL for nothing): finishes the join as spool_join does. */
SPOOL_API void spool__join_finish_v3(struct spool__join_frame_v3 *b, struct spool__job *popped);

/* spool__tls_fork_v3, read again: what the sync pops from.  On x86-64 ELF
 * it is one asm statement, so that the compiler neither keeps the TLS
 * offset in a callee-saved register across the caller's half (a push and a
 * pop more per fork) nor has the fork store the pointer in the frame for
 * the sync to load back (a store and a dependent load on every fork:
 * deque.md).  The same initial-exec access as the C read
 * of the variable (the linker turns it into a constant offset in an
 * executable); volatile, so that each sync reads it. */
static inline __attribute__((always_inline)) struct spool__fork_owner_v3 *
spool__fork_owner_now_v3(void)
{
#if defined(__x86_64__) && defined(__ELF__) && !defined(__ILP32__) && !defined(__code_model_large__)
    struct spool__fork_owner_v3 *owner;
    __asm__ volatile("movq spool__tls_fork_v3@gottpoff(%%rip), %0\n\t"
                     "movq %%fs:(%0), %0"
                     : "=r"(owner));
    return owner;
#else
    return spool__tls_fork_v3;
#endif
}

/* The slot of index i, which lies in the window (floor <= i < limit). */
static inline __attribute__((always_inline)) struct spool__job **
spool__fork_slot_v3(struct spool__fork_owner_v3 *owner, int64_t i)
{
    return (struct spool__job **)(owner->base + (uintptr_t)i * sizeof(struct spool__job *));
}

/* The owner's fast push and pop: the library's own (src/deque/deque.h calls
 * these), relaxed, the owner's own words; thieves see a job only once the
 * library publishes it.  The push fails when the buffer is full or the
 * public part ran out (limit), the pop when the newest job is public or a
 * thief asked for work (floor): the library then does it the slow way. */
static inline __attribute__((always_inline)) int
spool__fork_push_at_v3(struct spool__fork_owner_v3 *owner, struct spool__job *job, int64_t *index)
{
    int64_t bottom = __atomic_load_n(&owner->bottom, __ATOMIC_RELAXED);
    *index = bottom; /* where the job goes, pushed or not */
    if (__builtin_expect(bottom >= __atomic_load_n(&owner->limit, __ATOMIC_RELAXED), 0))
        return 0;
    __atomic_store_n(spool__fork_slot_v3(owner, bottom), job, __ATOMIC_RELAXED);
    __atomic_store_n(&owner->bottom, bottom + 1, __ATOMIC_RELAXED);
    return 1;
}

static inline __attribute__((always_inline)) int
spool__fork_push_v3(struct spool__fork_owner_v3 *owner, struct spool__job *job)
{
    int64_t index;
    return spool__fork_push_at_v3(owner, job, &index);
}

/* Returns the newest job, popped, or NULL with nothing popped. */
static inline __attribute__((always_inline)) struct spool__job *
spool__fork_pop_v3(struct spool__fork_owner_v3 *owner)
{
    int64_t bottom = __atomic_load_n(&owner->bottom, __ATOMIC_RELAXED) - 1;
    if (__builtin_expect(bottom < __atomic_load_n(&owner->floor, __ATOMIC_RELAXED), 0))
        return (struct spool__job *)0;
    __atomic_store_n(&owner->bottom, bottom, __ATOMIC_RELAXED);
    return __atomic_load_n(spool__fork_slot_v3(owner, bottom), __ATOMIC_RELAXED);
}

/* The pop of a fork's job: pops job, pushed at index, if it is still the
 * newest job (bottom is index + 1), private and not asked for (index at
 * least floor), and still in its slot (a holder may have run it and pushed
 * another there); returns 1 then, else 0 with nothing popped.  It is the
 * fast pop with one compare more, but the new bottom comes from the index
 * the fork kept, not from the load of bottom, so that the next push's load
 * of bottom waits for no chain of loads and stores of bottom. */
static inline __attribute__((always_inline)) int
spool__fork_pop_at_v3(struct spool__fork_owner_v3 *owner, int64_t index, struct spool__job *job)
{
    if (__builtin_expect(__atomic_load_n(&owner->bottom, __ATOMIC_RELAXED) == index + 1 &&
                             index >= __atomic_load_n(&owner->floor, __ATOMIC_RELAXED) &&
                             __atomic_load_n(spool__fork_slot_v3(owner, index), __ATOMIC_RELAXED) ==
                                 job,
                         1)) {
        __atomic_store_n(&owner->bottom, index, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* The join's common path, spool_join's and spool_join_inline's: b's job
 * built in frame and pushed, a run, b popped back.  Returns 1 if b is back
 * (the caller runs it), 0 if the library finished the join.  The pop is
 * the plain fast pop, not the pop at the fork's index: in a join the index
 * would be one more live value across a.  The pop reads the TLS pointer
 * again if reread (a constant: spool_join does, spool_join_inline keeps
 * owner; bench/'s fib shows which is faster for each). */
static inline __attribute__((always_inline)) int
spool__join_fork_v3(struct spool__fork_owner_v3 *owner, struct spool__join_frame_v3 *frame,
                    spool_fn a, void *arg_a, spool_fn b, void *arg_b, int reread)
{
    spool__join_frame_init_v3(frame, b, arg_b);
    if (__builtin_expect(!spool__fork_push_v3(owner, (struct spool__job *)(void *)frame), 0)) {
        spool__join_slow_v3(frame, a, arg_a);
        return 0;
    }
    a(arg_a);
    /* The pop reads base after a, which may have grown the buffer or moved
     * the window; b back at the top is the common case (else: stolen, or a
     * left jobs). */
    struct spool__job *popped = spool__fork_pop_v3(reread ? spool__fork_owner_now_v3() : owner);
    if (__builtin_expect(popped == (struct spool__job *)(void *)frame, 1))
        return 1;
    spool__join_finish_v3(frame, popped);
    return 0;
}

/*
 * spool_join_inline: spool_join (spool.h), with its common path inlined.
 * Threads: any (outside a pool it calls spool_join).
 * Returns: nothing; when it returns, a and b have both run.  A NULL a or b
 * aborts, as in spool_join.
 */
static inline __attribute__((always_inline)) void spool_join_inline(spool_fn a, void *arg_a,
                                                                   spool_fn b, void *arg_b)
{
    if (__builtin_expect(a == NULL || b == NULL, 0)) { /* folded away for constants */
        spool_join(a, arg_a, b, arg_b);
        return;
    }
    struct spool__join_frame_v3 frame;
    if (spool__join_fork_v3(spool__tls_fork_v3, &frame, a, arg_a, b, arg_b, 0))
        b(arg_b); /* not frame.fn: a constant b is called directly; not
                   * frame.arg: that would load what the fork stored */
}

/*
 * spool_fork_inline: the first half of a join of the caller's own code
 * with b(arg_b): b is offered to thieves, as spool_join's b is, and the
 * caller goes on with its half.  spool_sync_inline(f) ends the join; a
 * thread's forks end newest first (as nested joins do), each before its
 * caller returns, and *f stays where it is (the caller's stack) until
 * then.  In between the caller may do what spool_join's a may: join, fork,
 * open scopes, spawn.  Outside any pool nothing is offered, and the sync
 * gives b back: both halves run on the caller (where spool_join would
 * enter the global pool).
 * Threads: any; the fork and its sync on the same thread.
 * Returns: nothing.  A NULL b is a programming error: it prints one line
 * naming spool_fork_inline to stderr and aborts.
 */
static inline __attribute__((always_inline)) void spool_fork_inline(spool_fork_t *f, spool_fn b,
                                                                   void *arg_b)
{
    struct spool__join_frame_v3 *frame = &f->spool__frame;
    spool__join_frame_init_v3(frame, b, arg_b);
    /* The NULL test folds away for a constant b.  The slow push, if any,
     * puts b at the same index. */
    if (__builtin_expect(b == (spool_fn)0 ||
                             !spool__fork_push_at_v3(spool__tls_fork_v3,
                                                     (struct spool__job *)(void *)frame,
                                                     &f->spool__index),
                         0))
        spool__fork_slow_v3(frame);
}

/*
 * spool_sync_inline: ends the join that spool_fork_inline(f, b, arg_b)
 * began.  If b is still on this thread's deque it is taken back unrun, and
 * the caller must run it now, itself: b(arg_b), or the same work written
 * out, which is what makes the pair fast.  If a thief took b, waits for it
 * to finish, running other jobs meanwhile.
 * Threads: the thread that made the fork.
 * Returns: 1 if b has not run and the caller is to run it; 0 if b has run
 * (on a thief, or on this thread while it waited), its writes visible to
 * the caller.
 */
static inline __attribute__((always_inline)) int spool_sync_inline(spool_fork_t *f)
{
    struct spool__join_frame_v3 *frame = &f->spool__frame;
    if (__builtin_expect(spool__fork_pop_at_v3(spool__fork_owner_now_v3(), f->spool__index,
                                               (struct spool__job *)(void *)frame),
                         1))
        return 1;
    return spool__sync_finish_v3(frame);
}

#else /* not gcc or clang: the library's join, and every step of a fork */

static inline void spool_join_inline(spool_fn a, void *arg_a, spool_fn b, void *arg_b)
{
    spool_join(a, arg_a, b, arg_b);
}

static inline void spool_fork_inline(spool_fork_t *f, spool_fn b, void *arg_b)
{
    spool__join_frame_init_v3(&f->spool__frame, b, arg_b);
    spool__fork_slow_v3(&f->spool__frame);
}

static inline int spool_sync_inline(spool_fork_t *f)
{
    return spool__sync_finish_v3(&f->spool__frame);
}

#endif

#undef SPOOL__INLINE

#ifdef __cplusplus
}
#endif

#endif
