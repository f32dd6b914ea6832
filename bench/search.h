/*
 * spool-search: early exit over a range.  An array of n distinct values
 * (a[i] = i + 1) is searched for the one whose hash equals a key; the key
 * puts the only match at a given index, or nowhere.  "first" asks for the
 * lowest matching index (spool_find_first), "any" for some match
 * (spool_find_any); with one match both have one answer, which every run
 * checks.  Each peer (search.c: seq and spool; search_omp.c;
 * search_tbb.cpp) scans the same way, with search_scan.
 */
#ifndef SPOOL_BENCH_SEARCH_H
#define SPOOL_BENCH_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The size of the parts the OpenMP and oneTBB peers hand out; spool's
 * default splitting needs none. */
enum { SEARCH_CHUNK = 16384 };

/* A bijection of the 32-bit values, so that the key's match is unique. */
static inline uint32_t search_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The first index of [b, e) whose value hashes to key, or e.  Defined once
 * (search.c), so that every peer runs the same machine code: compiled
 * into each peer's file, the loop's code differed and so did its speed. */
size_t search_scan(const uint32_t *a, uint32_t key, size_t b, size_t e);

/* One search: any = 0 for the first match, 1 for any. */
typedef struct search {
    const uint32_t *a;
    size_t n;
    uint32_t key;
    int any;
} search_t;

#ifdef __cplusplus
}
#endif

#endif
