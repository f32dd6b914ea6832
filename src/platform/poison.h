/*
 * Internal: marking recycled memory unaddressable.
 *
 * A block on a free list is no job's any more (job.h: execute must not touch
 * its job once done), so everything in it but the free-list link (its first
 * word) is made unaddressable while it waits, under AddressSanitizer and in
 * the memcheck build (-DSPOOL_VALGRIND=ON); handed out again it becomes
 * addressable (and, for memcheck, undefined).  A use of a job's block after
 * its run is then reported, as for malloc'd memory.
 */
#ifndef SPOOL_POISON_H
#define SPOOL_POISON_H

#if defined(__SANITIZE_ADDRESS__)
#define SPOOL__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPOOL__ASAN 1
#endif
#endif

#if defined(SPOOL__ASAN)
#include <sanitizer/asan_interface.h>
#define SPOOL__POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SPOOL__UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#elif defined(SPOOL_MEMCHECK)
#include <valgrind/memcheck.h>
#define SPOOL__POISON(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS(p, n))
#define SPOOL__UNPOISON(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED(p, n))
#else
#define SPOOL__POISON(p, n) ((void)(p), (void)(n))
#define SPOOL__UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
