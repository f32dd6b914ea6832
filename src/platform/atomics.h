/* Internal: atomics helpers shared by every module.  Never installed. */
#ifndef SPOOL_ATOMICS_H
#define SPOOL_ATOMICS_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define SPOOL__CACHE_LINE 64
#define SPOOL__ALIGNED _Alignas(SPOOL__CACHE_LINE)

#if defined(__GNUC__)
#define SPOOL__NOINLINE __attribute__((noinline))
#define SPOOL__ALWAYS_INLINE inline __attribute__((always_inline))
/* Tells the optimiser that x holds; nothing checks it. */
#define SPOOL__ASSUME(x) (!(x) ? __builtin_unreachable() : (void)0)
#define SPOOL__LIKELY(x) __builtin_expect(!!(x), 1)
#define SPOOL__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SPOOL__NOINLINE
#define SPOOL__ALWAYS_INLINE inline
#define SPOOL__ASSUME(x) ((void)0)
#define SPOOL__LIKELY(x) (x)
#define SPOOL__UNLIKELY(x) (x)
#endif

#if defined(__SANITIZE_THREAD__)
#define SPOOL__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SPOOL__TSAN 1
#endif
#endif

/*
 * spool__fence_seq_cst(): the one standalone fence of the library.
 *
 * ThreadSanitizer does not model atomic_thread_fence, so under TSan every
 * fence becomes a seq-cst read-modify-write of one shared word.  All such RMWs
 * are totally ordered on that word and each reads the previous one, so of two
 * "fences" the later synchronizes with the earlier: everything the fence
 * protocols need (one of two fences comes first and makes the writes before it
 * visible after the other) holds, and TSan sees it as happens-before.
 *
 * SPOOL__MODEL_CHECK (the GenMC clients in model/genmc/) selects the C11
 * fence: GenMC drops inline assembly, and the locked OR below is x86's
 * implementation of that very fence.
 */
#ifdef SPOOL__TSAN
extern atomic_uint spool__tsan_fence_word;
#define spool__fence_seq_cst() \
    ((void)atomic_fetch_add_explicit(&spool__tsan_fence_word, 0, memory_order_seq_cst))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(SPOOL__MODEL_CHECK)
/* On x86-64 any locked instruction is a full barrier; a locked OR of zero on
 * the stack costs a fraction of mfence, which clang emits for the fence
 * (gcc emits this one; bench/'s fib at one thread shows the difference). */
#define spool__fence_seq_cst() __asm__ __volatile__("lock orq $0, (%%rsp)" ::: "memory", "cc")
#else
#define spool__fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
#endif

/* A hint to the CPU that the caller is spinning (x86 pause), so that it
 * saves power and lets a sibling hyperthread run. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define spool__cpu_relax() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__) && defined(__GNUC__)
#define spool__cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
/* A compiler barrier only (the loop rereads memory); it orders nothing
 * between threads and pairs with nothing. */
#define spool__cpu_relax() atomic_signal_fence(memory_order_seq_cst)
#endif

/*
 * Statistics (-DSPOOL_STATS): counters written by one thread, read by any.
 * Relaxed: they order nothing; a reader gets a recent value.  Without
 * SPOOL_STATS the increments vanish.
 */
#ifdef SPOOL_STATS
typedef atomic_ullong spool__stat_t;
#define SPOOL__STAT_INC(counter)                                                               \
    atomic_store_explicit(&(counter), atomic_load_explicit(&(counter), memory_order_relaxed) + 1, \
                          memory_order_relaxed)
#else
#define SPOOL__STAT_INC(counter) ((void)0)
#endif

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t spool__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Prints "spool: <msg>" to stderr and aborts.  For programming errors. */
_Noreturn void spool__abort(const char *msg);

#endif
