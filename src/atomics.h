/* Internal: atomics helpers shared by every module.  Never installed. */
#ifndef SPOOL_ATOMICS_H
#define SPOOL_ATOMICS_H

#include <stdatomic.h>

#define SPOOL__CACHE_LINE 64
#define SPOOL__ALIGNED _Alignas(SPOOL__CACHE_LINE)

#if defined(__GNUC__)
#define SPOOL__LIKELY(x) __builtin_expect(!!(x), 1)
#define SPOOL__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
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
 */
#ifdef SPOOL__TSAN
extern atomic_uint spool__tsan_fence_word;
#define spool__fence_seq_cst() \
    ((void)atomic_fetch_add_explicit(&spool__tsan_fence_word, 0, memory_order_seq_cst))
#else
#define spool__fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
#endif

/* Prints "spool: <msg>" to stderr and aborts.  For programming errors. */
_Noreturn void spool__abort(const char *msg);

#endif
