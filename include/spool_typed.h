/*
 * spool_typed.h: typed tasks, Cilk's and Lace's spawn and sync with real
 * arguments and results.
 *
 *     SPOOL_TASK_1(long, fib, long, n)
 *     {
 *         if (n < 2)
 *             return n;
 *         SPOOL_SPAWN(fib, n - 2);           // offered to thieves
 *         long a = SPOOL_CALL(fib, n - 1);   // a plain call, here
 *         return a + SPOOL_SYNC(fib);        // fib(n - 2), here unless stolen
 *     }
 *     ...
 *     long r = SPOOL_RUN(fib, 40);           // from any code
 *
 * A task is a C function of typed parameters (up to six) returning a value
 * of any complete object type (a struct too) or nothing.  Its body may
 * spawn tasks, call them, sync them, and call anything a job may: joins,
 * loops, scopes, groups, isolation, other tasks.  Arguments and results
 * travel by value.
 *
 * Defining and declaring (n = 0 .. 6 parameters, each a type and a name):
 *   SPOOL_TASK_n(RTYPE, NAME, T1, a1, ..., Tn, an) { body }
 *   SPOOL_VOID_TASK_n(NAME, T1, a1, ..., Tn, an) { body }
 *     define a task visible in this file.
 *   SPOOL_TASK_DECL_n(RTYPE, NAME, T1, ..., Tn);
 *   SPOOL_VOID_TASK_DECL_n(NAME, T1, ..., Tn);
 *     declare it (in a header, for several files), and
 *   SPOOL_TASK_IMPL_n(RTYPE, NAME, T1, a1, ..., Tn, an) { body }
 *   SPOOL_VOID_TASK_IMPL_n(NAME, T1, a1, ..., Tn, an) { body }
 *     define its body in one of them (after the declaration).
 *
 * In a task's body (nowhere else):
 *   SPOOL_SPAWN(NAME, args...);  offers the call NAME(args) to thieves.
 *   SPOOL_CALL(NAME, args...)    runs NAME(args) here: an expression, a
 *                                direct call.
 *   SPOOL_SYNC(NAME)             the result of the newest spawn not yet
 *                                synced, which must be of NAME: run here
 *                                unless a thief took it, else waited for
 *                                (running other jobs meanwhile).
 * Spawns may be made in loops and synced in loops, newest first; every
 * spawn is synced before its task returns.  Without NDEBUG a task that
 * returns with a spawn not synced, or a sync of another task's spawn,
 * prints one line naming the task to stderr and aborts.
 *
 * From any code:
 *   SPOOL_RUN(NAME, args...)     runs the task in the current pool (on a
 *                                worker: here), or from outside any pool
 *                                in the global pool with the caller taking
 *                                part (its caller slot, spool.h); its value
 *                                is the task's result.  If the global pool
 *                                cannot be started, the task runs on the
 *                                caller alone.
 *   SPOOL_RUN_IN(pool, NAME, args...)  runs it on pool's workers (as
 *                                spool_pool_install does); on a worker of
 *                                pool, here.  If pool cannot take it (its
 *                                destroy has begun, no memory, a forked
 *                                child) the task runs on the caller, so no
 *                                call is lost.  A NULL pool prints one line
 *                                naming SPOOL_RUN_IN and aborts.
 * Threads: any, for both.
 *
 * A spawn writes its frame (the task to run, the arguments) into the next
 * cell of its thread's frame deque, 64 bytes each, and the sync takes it
 * back: the deque's head travels with the task's code as a hidden
 * parameter, and neither the spawn nor the sync touches a word that a
 * thief writes unless a thief asked for work or took the frame.  Thieves
 * take the oldest frame, run it on their own threads in the context of
 * the code that spawned it (its scope, its isolation region) and write the
 * result into the cell (src/frames/frames.md).  A task whose arguments,
 * or whose result, take more than 48 bytes has its frame on a frame stack
 * of the thread instead and forks through spool_fork_inline
 * (spool_inline.h): it works the same, at the cost of a join.  A thread's
 * frame deque and its frame stack each reserve 64 MiB of address space
 * when the thread first needs them, touched as used; a thread with more
 * outstanding spawns than fit prints one line naming the task to stderr
 * and aborts (as a deep recursion overflows its stack).  Spawns not synced
 * count for spool_current_thread_has_pending_tasks; the yields leave them
 * to their syncs.  The task's own code is called directly, never through
 * a pointer, unless a thief runs it; the header ties the program to the
 * library's inline ABI as spool_inline.h says.
 *
 * Compilers: gcc and clang (the header uses their built-ins and
 * __thread), C11 or later, or C++17 or later.  In C++ the same macros
 * define tasks whose parameters and result are trivially copyable types
 * (a frame is raw memory: no constructor or destructor runs; a task of
 * other types fails to compile, saying so), and a task's body is
 * noexcept: an exception that would leave it calls std::terminate (a
 * spawn not synced cannot be unwound).  A task declared in C++ is called
 * from C++.  spool.hpp has joins and scopes of any callable.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_TYPED_H
#define SPOOL_TYPED_H

#if defined(__cplusplus) && __cplusplus < 201703L
#error "spool_typed.h in C++ needs C++17 (or use spool.hpp's joins and scopes)"
#endif
#if !defined(__GNUC__)
#error "spool_typed.h needs gcc or clang"
#endif

#include <stddef.h>

#include "spool.h"
#include "spool_inline.h"

#ifdef __cplusplus
#include <type_traits>
#define SPOOL__TSTATIC_ASSERT static_assert
#define SPOOL__TALIGNOF alignof
#define SPOOL__TNOEXCEPT noexcept
/* A frame is raw memory on the frame stack, copied in and out: its
 * fields (the parameters, the result) must be trivially copyable. */
#define SPOOL__TCHECK_FRAME(NAME)                                                                  \
    static_assert(std::is_trivially_copyable_v<struct NAME##_spool_frame>,                         \
                  #NAME ": a typed task's parameters and result must be trivially copyable");
#else
#define SPOOL__TSTATIC_ASSERT _Static_assert
#define SPOOL__TALIGNOF _Alignof
#define SPOOL__TNOEXCEPT
#define SPOOL__TCHECK_FRAME(NAME)
#endif

/* Internal to spool: do not use these names directly. */

#ifdef __cplusplus
extern "C" {
#endif

struct spool__cell_v4;

/* The first 16 bytes of a frame: the thief's entry (the task's own steal
 * function; NULL in a cell no spawn holds), and a word the thief sets
 * once it has run the frame (src/frames/frames.md). */
struct spool__frame_hdr_v4 {
    void (*steal)(struct spool__frame_hdr_v4 *frame, struct spool__cell_v4 *head);
    int state;
    int spare;
};

/* A cell of a frame deque: a frame's header, then 48 bytes for its
 * arguments or (once a thief ran it) its result. */
struct spool__cell_v4 {
    struct spool__frame_hdr_v4 hdr;
    unsigned char payload[48] __attribute__((aligned(16)));
} __attribute__((aligned(64)));

/* A frame deque is SPOOL__FRAMES_BYTES_V4 of address space aligned to its
 * size; its first words are the owner's bounds, which the spawn and the
 * sync compare a cell's address with: the spawn's cell must lie below
 * limit, the sync's at or above floor, else the library takes over. */
#define SPOOL__FRAMES_BYTES_V4 ((uintptr_t)1 << 26)
struct spool__frames_owner_v4 {
    uintptr_t limit;
    uintptr_t floor;
};

/* The spawn's fast path failed (a thief asked, or the deque is full: then
 * it names the task and aborts). */
SPOOL_API void spool__frames_spawn_slow_v4(struct spool__cell_v4 *cell, const char *name);
/* The sync's fast path failed: 1 if the frame is still the caller's to
 * run, 0 once a thief ran it (its result is in the cell). */
SPOOL_API int spool__frames_sync_slow_v4(struct spool__cell_v4 *cell);
/* SPOOL_RUN (in 0, pool NULL) and SPOOL_RUN_IN (in 1): runs the frame (any
 * size) on the calling thread's frame deque or a worker's. */
SPOOL_API void spool__typed_run_v4(spool_pool_t *pool, int in, struct spool__frame_hdr_v4 *frame);
/* A frame too large for a cell, run by the thread that took its fork. */
SPOOL_API void spool__typed_here_v4(void *frame);
/* The calling thread's frame stack for frames too large for a cell: the
 * first free byte and the end, NULL until the thread's first such spawn;
 * spool__typed_stack_v4 makes it and returns its top. */
SPOOL_API extern __thread char *spool__typed_top_v4 __attribute__((tls_model("initial-exec")));
SPOOL_API extern __thread char *spool__typed_end_v4 __attribute__((tls_model("initial-exec")));
SPOOL_API char *spool__typed_stack_v4(void);
/* The head the thread's typed code last set, for the checks of a build
 * without NDEBUG. */
SPOOL_API extern __thread struct spool__cell_v4 *spool__typed_head_v4
    __attribute__((tls_model("initial-exec")));
/* Name the task and abort: too many spawns outstanding, a task that
 * returned with a spawn not synced, a sync of another task's spawn. */
SPOOL_API void spool__typed_overflow_v4(const char *name);
SPOOL_API void spool__typed_unsynced_v4(const char *name);
SPOOL_API void spool__typed_mismatch_v4(const char *name);

#ifdef __cplusplus
}
#endif

static inline __attribute__((always_inline)) struct spool__frames_owner_v4 *
spool__frames_bounds_v4(struct spool__cell_v4 *c)
{
    return (struct spool__frames_owner_v4 *)(void *)((uintptr_t)c & ~(SPOOL__FRAMES_BYTES_V4 - 1));
}

/* The spawn's test, after it wrote cell c: may it go on alone?  The sync's
 * test, after it took c back: is c still private, with no ask up?  o is
 * c's deque's bounds.  Relaxed loads: a thief writes these words only to
 * ask (src/frames/frames.h runs the same tests). */
static inline __attribute__((always_inline)) int
spool__frames_spawn_fast_v4(struct spool__frames_owner_v4 *o, struct spool__cell_v4 *c)
{
    return (uintptr_t)c < __atomic_load_n(&o->limit, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) int
spool__frames_sync_fast_v4(struct spool__frames_owner_v4 *o, struct spool__cell_v4 *c)
{
    return (uintptr_t)c >= __atomic_load_n(&o->floor, __ATOMIC_RELAXED);
}

#define SPOOL__TCAT_(a, b) a##b
#define SPOOL__TCAT(a, b) SPOOL__TCAT_(a, b)

/* 1 for a lone NAME, M for NAME and arguments (up to six). */
#define SPOOL__TOM_(a1, a2, a3, a4, a5, a6, a7, a8, x, ...) x
#define SPOOL__TOM(...) SPOOL__TOM_(__VA_ARGS__, M, M, M, M, M, M, M, 1, _)

#define SPOOL__THDR(p) ((struct spool__frame_hdr_v4 *)(void *)(p))
/* Does the task's frame fit in a cell?  1 or 0: the cells a spawn takes. */
#define SPOOL__TFITS(NAME) (sizeof(struct NAME##_spool_frame) <= sizeof(struct spool__cell_v4))
/* A large frame's room on the frame stack: a multiple of 16, so that every
 * frame starts 16-aligned. */
#define SPOOL__TBIG_SIZE(NAME) ((sizeof(struct NAME##_spool_big) + 15) & ~(size_t)15)

/* The checks of a build without NDEBUG: each spawn and sync notes the
 * thread's head (spool__typed_head_v4), and a body that returns with it
 * (or the frame stack's top) elsewhere than where it began names its task;
 * a sync whose cell (or newest large frame) is another task's names it. */
#ifdef NDEBUG
#define SPOOL__TDBG_ENTER(h, t0)
#define SPOOL__TDBG_LEAVE(h, t0, name) ((void)0)
#define SPOOL__TDBG_HEAD(h) ((void)0)
#define SPOOL__TCHECK_CELL(hdr, NAME) ((void)0)
#define SPOOL__TCHECK_BIG(t, NAME) ((void)0)
#else
#define SPOOL__TDBG_ENTER(h, t0)                                                                   \
    char *t0 = spool__typed_top_v4 != (char *)0 ? spool__typed_top_v4 : spool__typed_stack_v4();  \
    spool__typed_head_v4 = (h);
#define SPOOL__TDBG_LEAVE(h, t0, name)                                                             \
    (__builtin_expect(spool__typed_head_v4 != (h) || spool__typed_top_v4 != (t0), 0)               \
         ? spool__typed_unsynced_v4(name)                                                          \
         : (void)0)
#define SPOOL__TDBG_HEAD(h) (spool__typed_head_v4 = (h))
#define SPOOL__TCHECK_CELL(hdr, NAME)                                                              \
    (__builtin_expect((hdr)->steal != NAME##_spool_steal, 0) ? spool__typed_mismatch_v4(#NAME)    \
                                                              : (void)0)
#define SPOOL__TCHECK_BIG(t, NAME)                                                                 \
    (__builtin_expect((t) == (char *)0 ||                                                          \
                          SPOOL__THDR(&((struct NAME##_spool_big *)(void *)((t) -                  \
                                                                   SPOOL__TBIG_SIZE(NAME)))        \
                                           ->spool__f)                                             \
                                  ->steal != NAME##_spool_steal,                                   \
                      0)                                                                           \
         ? spool__typed_mismatch_v4(#NAME)                                                         \
         : (void)0)
#endif

/* A task's frame: the header, then its arguments, or its result in their
 * place (RESFIELD; none for a void task).  A frame too large for a cell
 * travels with a fork in front (NAME_spool_big). */
#define SPOOL__TASK_FRAME(NAME, N, TYPES, RESFIELD)                                                \
    struct NAME##_spool_frame {                                                                    \
        struct spool__frame_hdr_v4 spool__hdr;                                                     \
        union {                                                                                    \
            struct {                                                                               \
                SPOOL__TCAT(SPOOL__TF_, N) TYPES                                                   \
            } spool__a;                                                                            \
            RESFIELD                                                                               \
        } spool__u;                                                                                \
    };                                                                                             \
    struct NAME##_spool_big {                                                                      \
        spool_fork_t spool__fork;                                                                  \
        struct NAME##_spool_frame spool__f;                                                        \
    };                                                                                             \
    SPOOL__TCHECK_FRAME(NAME)                                                                      \
    SPOOL__TSTATIC_ASSERT(SPOOL__TALIGNOF(struct NAME##_spool_frame) <= 16,                        \
                   #NAME ": a typed task's arguments and result need at most 16-byte alignment")

/* The spawn: the frame written into cell c, the head, and offered to
 * thieves (SPOOL_SPAWN moves the head on in the body's variable); a large
 * frame on the frame stack, offered through its fork. */
#define SPOOL__TASK_SPAWN(NAME, N, TYPES)                                                          \
    static inline __attribute__((always_inline, unused)) void NAME##_spool_spawn(                  \
        struct spool__cell_v4 *spool__c SPOOL__TCAT(SPOOL__TP_, N) TYPES)                          \
    {                                                                                              \
        struct NAME##_spool_frame *spool__f;                                                       \
        if (SPOOL__TFITS(NAME)) {                                                                  \
            spool__f = (struct NAME##_spool_frame *)(void *)spool__c;                              \
            SPOOL__THDR(spool__c)->steal = NAME##_spool_steal;                                     \
            SPOOL__TCAT(SPOOL__TS_, N)(spool__f)                                                   \
            if (__builtin_expect(                                                                  \
                    !spool__frames_spawn_fast_v4(spool__frames_bounds_v4(spool__c), spool__c), 0)) \
                spool__frames_spawn_slow_v4(spool__c, #NAME);                                      \
            SPOOL__TDBG_HEAD(spool__c + 1);                                                        \
            return;                                                                                \
        }                                                                                          \
        char *spool__t = spool__typed_top_v4;                                                      \
        if (__builtin_expect(spool__t == (char *)0, 0))                                            \
            spool__t = spool__typed_stack_v4();                                                    \
        struct NAME##_spool_big *spool__g = (struct NAME##_spool_big *)(void *)spool__t;           \
        char *spool__next = spool__t + SPOOL__TBIG_SIZE(NAME);                                     \
        if (__builtin_expect(spool__next > spool__typed_end_v4, 0))                                \
            spool__typed_overflow_v4(#NAME);                                                       \
        spool__typed_top_v4 = spool__next;                                                         \
        spool__f = &spool__g->spool__f;                                                            \
        SPOOL__THDR(spool__f)->steal = NAME##_spool_steal;                                         \
        SPOOL__TCAT(SPOOL__TS_, N)(spool__f)                                                       \
        spool_fork_inline(&spool__g->spool__fork, spool__typed_here_v4, spool__f);                 \
        SPOOL__TDBG_HEAD(spool__c);                                                                \
    }

/* A task's declaration, value or void: RESFIELD is the result's field in
 * the frame (none for void), SET what stores a body's result there, GET
 * the expression that reads it back, RET what returns a value. */
#define SPOOL__TASK_DECL_(LINK, RTYPE, NAME, N, TYPES, RESFIELD, SET, GET, RET)                    \
    SPOOL__TASK_FRAME(NAME, N, TYPES, RESFIELD);                                                   \
    LINK RTYPE NAME##_spool_body(struct spool__cell_v4 *spool__head SPOOL__TCAT(SPOOL__TP_, N)     \
                                     TYPES) SPOOL__TNOEXCEPT;                                      \
    static inline __attribute__((unused)) void NAME##_spool_steal(                                 \
        struct spool__frame_hdr_v4 *spool__p, struct spool__cell_v4 *spool__head) SPOOL__TNOEXCEPT \
    {                                                                                              \
        struct NAME##_spool_frame *spool__f = (struct NAME##_spool_frame *)(void *)spool__p;       \
        (void)spool__f; /* void, no arguments: unused */                                           \
        SET NAME##_spool_body(spool__head SPOOL__TCAT(SPOOL__TL_, N)(spool__f));                   \
    }                                                                                              \
    SPOOL__TASK_SPAWN(NAME, N, TYPES)                                                              \
    static inline __attribute__((always_inline, unused)) RTYPE NAME##_spool_sync(                  \
        struct spool__cell_v4 *spool__c)                                                           \
    {                                                                                              \
        struct NAME##_spool_frame *spool__f;                                                       \
        int spool__mine;                                                                           \
        if (SPOOL__TFITS(NAME)) {                                                                  \
            SPOOL__TCHECK_CELL(SPOOL__THDR(spool__c), NAME);                                       \
            spool__f = (struct NAME##_spool_frame *)(void *)spool__c;                              \
            if (__builtin_expect(                                                                  \
                    spool__frames_sync_fast_v4(spool__frames_bounds_v4(spool__c), spool__c), 1)) { \
                SPOOL__THDR(spool__c)->steal = 0; /* the cell is free */                          \
                spool__mine = 1;                                                                   \
            } else {                                                                               \
                spool__mine = spool__frames_sync_slow_v4(spool__c);                                \
            }                                                                                      \
        } else {                                                                                   \
            char *spool__t = spool__typed_top_v4;                                                  \
            SPOOL__TCHECK_BIG(spool__t, NAME);                                                     \
            struct NAME##_spool_big *spool__g =                                                    \
                (struct NAME##_spool_big *)(void *)(spool__t - SPOOL__TBIG_SIZE(NAME));            \
            spool__f = &spool__g->spool__f;                                                        \
            spool__mine = spool_sync_inline(&spool__g->spool__fork);                               \
            spool__typed_top_v4 = (char *)spool__g;                                                \
        }                                                                                          \
        (void)spool__f; /* void, no arguments: unused */                                           \
        SPOOL__TDBG_HEAD(spool__c);                                                                \
        if (__builtin_expect(spool__mine, 1))                                                      \
            RET NAME##_spool_body(spool__c SPOOL__TCAT(SPOOL__TL_, N)(spool__f));                  \
        RET GET;                                                                                   \
    }                                                                                              \
    static inline __attribute__((unused)) RTYPE NAME##_spool_run(spool_pool_t *spool__pool,        \
                                         int spool__in SPOOL__TCAT(SPOOL__TP_, N) TYPES)           \
    {                                                                                              \
        struct NAME##_spool_frame spool__frame;                                                    \
        struct NAME##_spool_frame *spool__f = &spool__frame;                                       \
        SPOOL__THDR(spool__f)->steal = NAME##_spool_steal;                                         \
        SPOOL__TCAT(SPOOL__TS_, N)(spool__f)                                                       \
        spool__typed_run_v4(spool__pool, spool__in, SPOOL__THDR(spool__f));                        \
        RET GET;                                                                                   \
    }                                                                                              \
    struct NAME##_spool_frame

/* Value tasks. */
#define SPOOL__TASK_DECL(LINK, RTYPE, NAME, N, TYPES)                                              \
    SPOOL__TASK_DECL_(LINK, RTYPE, NAME, N, TYPES, RTYPE spool__res;,                              \
                      spool__f->spool__u.spool__res =, spool__f->spool__u.spool__res, return)

#define SPOOL__TASK_IMPL(LINK, RTYPE, NAME, N, TYPES, PAIRS)                                       \
    static inline RTYPE NAME##_spool_impl(                          \
        struct spool__cell_v4 *spool__head SPOOL__TCAT(SPOOL__TP_, N) TYPES);                      \
    LINK RTYPE NAME##_spool_body(struct spool__cell_v4 *spool__head SPOOL__TCAT(SPOOL__TP_, N)     \
                                     TYPES) SPOOL__TNOEXCEPT                                       \
    {                                                                                              \
        SPOOL__TDBG_ENTER(spool__head, spool__t0)                                                  \
        RTYPE spool__r = NAME##_spool_impl(spool__head SPOOL__TCAT(SPOOL__TA_, N));                \
        SPOOL__TDBG_LEAVE(spool__head, spool__t0, #NAME);                                          \
        return spool__r;                                                                           \
    }                                                                                              \
    static inline RTYPE NAME##_spool_impl(                          \
        struct spool__cell_v4 *SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body                        \
            __attribute__((unused)) SPOOL__TCAT(SPOOL__NP_, N) PAIRS)

#define SPOOL__TASK(RTYPE, NAME, N, PAIRS)                                                         \
    SPOOL__TASK_DECL(static, RTYPE, NAME, N, SPOOL__TCAT(SPOOL__NT_, N) PAIRS);                    \
    SPOOL__TASK_IMPL_P(static, RTYPE, NAME, N, PAIRS)

/* Void tasks: the same without a result. */
#define SPOOL__VOID_TASK_DECL(LINK, NAME, N, TYPES)                                                \
    SPOOL__TASK_DECL_(LINK, void, NAME, N, TYPES, , , (void)0, )

#define SPOOL__VOID_TASK_IMPL(LINK, NAME, N, TYPES, PAIRS)                                         \
    static inline void NAME##_spool_impl(                           \
        struct spool__cell_v4 *spool__head SPOOL__TCAT(SPOOL__TP_, N) TYPES);                      \
    LINK void NAME##_spool_body(struct spool__cell_v4 *spool__head SPOOL__TCAT(SPOOL__TP_, N)      \
                                    TYPES) SPOOL__TNOEXCEPT                                        \
    {                                                                                              \
        SPOOL__TDBG_ENTER(spool__head, spool__t0)                                                  \
        NAME##_spool_impl(spool__head SPOOL__TCAT(SPOOL__TA_, N));                                 \
        SPOOL__TDBG_LEAVE(spool__head, spool__t0, #NAME);                                          \
    }                                                                                              \
    static inline void NAME##_spool_impl(                           \
        struct spool__cell_v4 *SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body                        \
            __attribute__((unused)) SPOOL__TCAT(SPOOL__NP_, N) PAIRS)

#define SPOOL__VOID_TASK(NAME, N, PAIRS)                                                           \
    SPOOL__VOID_TASK_DECL(static, NAME, N, SPOOL__TCAT(SPOOL__NT_, N) PAIRS);                      \
    SPOOL__VOID_TASK_IMPL_P(static, NAME, N, PAIRS)

/* The implementations from the (type, name) pairs alone. */
#define SPOOL__TASK_IMPL_P(LINK, RTYPE, NAME, N, PAIRS)                                            \
    SPOOL__TASK_IMPL(LINK, RTYPE, NAME, N, SPOOL__TCAT(SPOOL__NT_, N) PAIRS, PAIRS)
#define SPOOL__VOID_TASK_IMPL_P(LINK, NAME, N, PAIRS)                                              \
    SPOOL__VOID_TASK_IMPL(LINK, NAME, N, SPOOL__TCAT(SPOOL__NT_, N) PAIRS, PAIRS)

/* The calls.  SPOOL_SPAWN, SPOOL_CALL and SPOOL_SYNC name the task body's
 * hidden frame parameter, named so that a use outside a task body fails to
 * compile with an error that says so. */
#define SPOOL__TSPAWN_1(NAME)                                                                      \
    (NAME##_spool_spawn(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body),                             \
     (void)(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body += SPOOL__TFITS(NAME)))
#define SPOOL__TSPAWN_M(NAME, ...)                                                                 \
    (NAME##_spool_spawn(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body, __VA_ARGS__),                \
     (void)(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body += SPOOL__TFITS(NAME)))
#define SPOOL__TCALL_1(NAME) NAME##_spool_body(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body)
#define SPOOL__TCALL_M(NAME, ...)                                                                  \
    NAME##_spool_body(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body, __VA_ARGS__)
#define SPOOL__TRUN_1(pool, in, NAME) NAME##_spool_run(pool, in)
#define SPOOL__TRUN_M(pool, in, NAME, ...) NAME##_spool_run(pool, in, __VA_ARGS__)

/* Per number of parameters: fields, parameters, names, stores and loads. */
#define SPOOL__TF_0() char spool__none;
#define SPOOL__TF_1(T1) T1 spool__a1;
#define SPOOL__TF_2(T1, T2) T1 spool__a1; T2 spool__a2;
#define SPOOL__TF_3(T1, T2, T3) T1 spool__a1; T2 spool__a2; T3 spool__a3;
#define SPOOL__TF_4(T1, T2, T3, T4) T1 spool__a1; T2 spool__a2; T3 spool__a3; T4 spool__a4;
#define SPOOL__TF_5(T1, T2, T3, T4, T5) T1 spool__a1; T2 spool__a2; T3 spool__a3; T4 spool__a4;    \
    T5 spool__a5;
#define SPOOL__TF_6(T1, T2, T3, T4, T5, T6) T1 spool__a1; T2 spool__a2; T3 spool__a3;              \
    T4 spool__a4; T5 spool__a5; T6 spool__a6;
#define SPOOL__TP_0()
#define SPOOL__TP_1(T1) , T1 spool__a1
#define SPOOL__TP_2(T1, T2) , T1 spool__a1, T2 spool__a2
#define SPOOL__TP_3(T1, T2, T3) , T1 spool__a1, T2 spool__a2, T3 spool__a3
#define SPOOL__TP_4(T1, T2, T3, T4) , T1 spool__a1, T2 spool__a2, T3 spool__a3, T4 spool__a4
#define SPOOL__TP_5(T1, T2, T3, T4, T5) , T1 spool__a1, T2 spool__a2, T3 spool__a3, T4 spool__a4   \
    , T5 spool__a5
#define SPOOL__TP_6(T1, T2, T3, T4, T5, T6) , T1 spool__a1, T2 spool__a2, T3 spool__a3             \
    , T4 spool__a4, T5 spool__a5, T6 spool__a6
#define SPOOL__TA_0
#define SPOOL__TA_1 , spool__a1
#define SPOOL__TA_2 , spool__a1, spool__a2
#define SPOOL__TA_3 , spool__a1, spool__a2, spool__a3
#define SPOOL__TA_4 , spool__a1, spool__a2, spool__a3, spool__a4
#define SPOOL__TA_5 , spool__a1, spool__a2, spool__a3, spool__a4, spool__a5
#define SPOOL__TA_6 , spool__a1, spool__a2, spool__a3, spool__a4, spool__a5, spool__a6
/* The frame's k-th argument. */
#define SPOOL__TARG(f, k) (f)->spool__u.spool__a.spool__a##k
#define SPOOL__TS_0(f)
#define SPOOL__TS_1(f) SPOOL__TARG(f, 1) = spool__a1;
#define SPOOL__TS_2(f) SPOOL__TS_1(f) SPOOL__TARG(f, 2) = spool__a2;
#define SPOOL__TS_3(f) SPOOL__TS_2(f) SPOOL__TARG(f, 3) = spool__a3;
#define SPOOL__TS_4(f) SPOOL__TS_3(f) SPOOL__TARG(f, 4) = spool__a4;
#define SPOOL__TS_5(f) SPOOL__TS_4(f) SPOOL__TARG(f, 5) = spool__a5;
#define SPOOL__TS_6(f) SPOOL__TS_5(f) SPOOL__TARG(f, 6) = spool__a6;
#define SPOOL__TL_0(f)
#define SPOOL__TL_1(f) , SPOOL__TARG(f, 1)
#define SPOOL__TL_2(f) SPOOL__TL_1(f), SPOOL__TARG(f, 2)
#define SPOOL__TL_3(f) SPOOL__TL_2(f), SPOOL__TARG(f, 3)
#define SPOOL__TL_4(f) SPOOL__TL_3(f), SPOOL__TARG(f, 4)
#define SPOOL__TL_5(f) SPOOL__TL_4(f), SPOOL__TARG(f, 5)
#define SPOOL__TL_6(f) SPOOL__TL_5(f), SPOOL__TARG(f, 6)
#define SPOOL__NP_0()
#define SPOOL__NP_1(T1, a1) , T1 a1
#define SPOOL__NP_2(T1, a1, T2, a2) , T1 a1, T2 a2
#define SPOOL__NP_3(T1, a1, T2, a2, T3, a3) , T1 a1, T2 a2, T3 a3
#define SPOOL__NP_4(T1, a1, T2, a2, T3, a3, T4, a4) , T1 a1, T2 a2, T3 a3, T4 a4
#define SPOOL__NP_5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) , T1 a1, T2 a2, T3 a3, T4 a4, T5 a5
#define SPOOL__NP_6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) , T1 a1, T2 a2, T3 a3, T4 a4   \
    , T5 a5, T6 a6
#define SPOOL__NT_0() ()
#define SPOOL__NT_1(T1, a1) (T1)
#define SPOOL__NT_2(T1, a1, T2, a2) (T1, T2)
#define SPOOL__NT_3(T1, a1, T2, a2, T3, a3) (T1, T2, T3)
#define SPOOL__NT_4(T1, a1, T2, a2, T3, a3, T4, a4) (T1, T2, T3, T4)
#define SPOOL__NT_5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) (T1, T2, T3, T4, T5)
#define SPOOL__NT_6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) (T1, T2, T3, T4, T5, T6)

/* ---- the public macros ----------------------------------------------------- */

/* Defining, declaring and implementing tasks of 0 .. 6 parameters (see the
 * opening comment). */
#define SPOOL_TASK_0(RTYPE, NAME)                                                                  \
    SPOOL__TASK(RTYPE, NAME, 0, ())
#define SPOOL_VOID_TASK_0(NAME)                                                                    \
    SPOOL__VOID_TASK(NAME, 0, ())
#define SPOOL_TASK_DECL_0(RTYPE, NAME)                                                             \
    SPOOL__TASK_DECL(, RTYPE, NAME, 0, ())
#define SPOOL_VOID_TASK_DECL_0(NAME)                                                               \
    SPOOL__VOID_TASK_DECL(, NAME, 0, ())
#define SPOOL_TASK_IMPL_0(RTYPE, NAME)                                                             \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 0, ())
#define SPOOL_VOID_TASK_IMPL_0(NAME)                                                               \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 0, ())
#define SPOOL_TASK_1(RTYPE, NAME, T1, a1)                                                          \
    SPOOL__TASK(RTYPE, NAME, 1, (T1, a1))
#define SPOOL_VOID_TASK_1(NAME, T1, a1)                                                            \
    SPOOL__VOID_TASK(NAME, 1, (T1, a1))
#define SPOOL_TASK_DECL_1(RTYPE, NAME, T1)                                                         \
    SPOOL__TASK_DECL(, RTYPE, NAME, 1, (T1))
#define SPOOL_VOID_TASK_DECL_1(NAME, T1)                                                           \
    SPOOL__VOID_TASK_DECL(, NAME, 1, (T1))
#define SPOOL_TASK_IMPL_1(RTYPE, NAME, T1, a1)                                                     \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 1, (T1, a1))
#define SPOOL_VOID_TASK_IMPL_1(NAME, T1, a1)                                                       \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 1, (T1, a1))
#define SPOOL_TASK_2(RTYPE, NAME, T1, a1, T2, a2)                                                  \
    SPOOL__TASK(RTYPE, NAME, 2, (T1, a1, T2, a2))
#define SPOOL_VOID_TASK_2(NAME, T1, a1, T2, a2)                                                    \
    SPOOL__VOID_TASK(NAME, 2, (T1, a1, T2, a2))
#define SPOOL_TASK_DECL_2(RTYPE, NAME, T1, T2)                                                     \
    SPOOL__TASK_DECL(, RTYPE, NAME, 2, (T1, T2))
#define SPOOL_VOID_TASK_DECL_2(NAME, T1, T2)                                                       \
    SPOOL__VOID_TASK_DECL(, NAME, 2, (T1, T2))
#define SPOOL_TASK_IMPL_2(RTYPE, NAME, T1, a1, T2, a2)                                             \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 2, (T1, a1, T2, a2))
#define SPOOL_VOID_TASK_IMPL_2(NAME, T1, a1, T2, a2)                                               \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 2, (T1, a1, T2, a2))
#define SPOOL_TASK_3(RTYPE, NAME, T1, a1, T2, a2, T3, a3)                                          \
    SPOOL__TASK(RTYPE, NAME, 3, (T1, a1, T2, a2, T3, a3))
#define SPOOL_VOID_TASK_3(NAME, T1, a1, T2, a2, T3, a3)                                            \
    SPOOL__VOID_TASK(NAME, 3, (T1, a1, T2, a2, T3, a3))
#define SPOOL_TASK_DECL_3(RTYPE, NAME, T1, T2, T3)                                                 \
    SPOOL__TASK_DECL(, RTYPE, NAME, 3, (T1, T2, T3))
#define SPOOL_VOID_TASK_DECL_3(NAME, T1, T2, T3)                                                   \
    SPOOL__VOID_TASK_DECL(, NAME, 3, (T1, T2, T3))
#define SPOOL_TASK_IMPL_3(RTYPE, NAME, T1, a1, T2, a2, T3, a3)                                     \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 3, (T1, a1, T2, a2, T3, a3))
#define SPOOL_VOID_TASK_IMPL_3(NAME, T1, a1, T2, a2, T3, a3)                                       \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 3, (T1, a1, T2, a2, T3, a3))
#define SPOOL_TASK_4(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4)                                  \
    SPOOL__TASK(RTYPE, NAME, 4, (T1, a1, T2, a2, T3, a3, T4, a4))
#define SPOOL_VOID_TASK_4(NAME, T1, a1, T2, a2, T3, a3, T4, a4)                                    \
    SPOOL__VOID_TASK(NAME, 4, (T1, a1, T2, a2, T3, a3, T4, a4))
#define SPOOL_TASK_DECL_4(RTYPE, NAME, T1, T2, T3, T4)                                             \
    SPOOL__TASK_DECL(, RTYPE, NAME, 4, (T1, T2, T3, T4))
#define SPOOL_VOID_TASK_DECL_4(NAME, T1, T2, T3, T4)                                               \
    SPOOL__VOID_TASK_DECL(, NAME, 4, (T1, T2, T3, T4))
#define SPOOL_TASK_IMPL_4(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4)                             \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 4, (T1, a1, T2, a2, T3, a3, T4, a4))
#define SPOOL_VOID_TASK_IMPL_4(NAME, T1, a1, T2, a2, T3, a3, T4, a4)                               \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 4, (T1, a1, T2, a2, T3, a3, T4, a4))
#define SPOOL_TASK_5(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5)                          \
    SPOOL__TASK(RTYPE, NAME, 5, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5))
#define SPOOL_VOID_TASK_5(NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5)                            \
    SPOOL__VOID_TASK(NAME, 5, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5))
#define SPOOL_TASK_DECL_5(RTYPE, NAME, T1, T2, T3, T4, T5)                                         \
    SPOOL__TASK_DECL(, RTYPE, NAME, 5, (T1, T2, T3, T4, T5))
#define SPOOL_VOID_TASK_DECL_5(NAME, T1, T2, T3, T4, T5)                                           \
    SPOOL__VOID_TASK_DECL(, NAME, 5, (T1, T2, T3, T4, T5))
#define SPOOL_TASK_IMPL_5(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5)                     \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 5, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5))
#define SPOOL_VOID_TASK_IMPL_5(NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5)                       \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 5, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5))
#define SPOOL_TASK_6(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6)                  \
    SPOOL__TASK(RTYPE, NAME, 6, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6))
#define SPOOL_VOID_TASK_6(NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6)                    \
    SPOOL__VOID_TASK(NAME, 6, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6))
#define SPOOL_TASK_DECL_6(RTYPE, NAME, T1, T2, T3, T4, T5, T6)                                     \
    SPOOL__TASK_DECL(, RTYPE, NAME, 6, (T1, T2, T3, T4, T5, T6))
#define SPOOL_VOID_TASK_DECL_6(NAME, T1, T2, T3, T4, T5, T6)                                       \
    SPOOL__VOID_TASK_DECL(, NAME, 6, (T1, T2, T3, T4, T5, T6))
#define SPOOL_TASK_IMPL_6(RTYPE, NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6)             \
    SPOOL__TASK_IMPL_P(, RTYPE, NAME, 6, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6))
#define SPOOL_VOID_TASK_IMPL_6(NAME, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6)               \
    SPOOL__VOID_TASK_IMPL_P(, NAME, 6, (T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6))

/* Spawning, calling and syncing, in a task's body (see the opening
 * comment). */
#define SPOOL_SPAWN(...) SPOOL__TCAT(SPOOL__TSPAWN_, SPOOL__TOM(__VA_ARGS__))(__VA_ARGS__)
#define SPOOL_CALL(...) SPOOL__TCAT(SPOOL__TCALL_, SPOOL__TOM(__VA_ARGS__))(__VA_ARGS__)
#define SPOOL_SYNC(NAME)                                                                           \
    NAME##_spool_sync(SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body -= SPOOL__TFITS(NAME))

/* Running a task from any code (see the opening comment). */
#define SPOOL_RUN(...)                                                                             \
    SPOOL__TCAT(SPOOL__TRUN_, SPOOL__TOM(__VA_ARGS__))((spool_pool_t *)0, 0, __VA_ARGS__)
#define SPOOL_RUN_IN(pool, ...)                                                                    \
    SPOOL__TCAT(SPOOL__TRUN_, SPOOL__TOM(__VA_ARGS__))((pool), 1, __VA_ARGS__)

#endif
