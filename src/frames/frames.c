/* A frame deque's memory and its head (frames.h, frames.md). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "frames/frames.h"

#include <errno.h>
#include <sys/mman.h>

spool__frames_t *spool__frames_create(void *owner, bool shared)
{
    /* Twice the size, then the part aligned to the size kept: a cell's
     * address gives its deque (spool__frames_owner_v4). */
    size_t size = SPOOL__FRAMES_BYTES_V4;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    char *raw = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (raw == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    uintptr_t start = ((uintptr_t)raw + size - 1) & ~(uintptr_t)(size - 1);
    char *base = (char *)start;
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (base + size < raw + 2 * size)
        munmap(base + size, (size_t)(raw + 2 * size - (base + size)));
    /* Fresh pages are zero: every cell free, every state 0. */
    spool__frames_t *d = (spool__frames_t *)(void *)base;
    spool__frames_init(d, owner, shared);
    return d;
}

void spool__frames_destroy(spool__frames_t *d)
{
    if (d != NULL)
        munmap(d, SPOOL__FRAMES_BYTES_V4);
}

static inline bool occupied(spool__frames_t *d, int64_t i)
{
    return spool__frames_cell(d, i)->hdr.steal != NULL;
}

int64_t spool__frames_head(spool__frames_t *d)
{
    /* The cells below the head hold spawns and none above does (F1): the
     * first free cell, found by doubling from the bottom and halving back,
     * so that only the pages up to about twice the head are read. */
    if (!occupied(d, 0))
        return 0;
    int64_t last = SPOOL__FRAMES_CELLS - 1;
    int64_t lo = 0, hi = 1; /* occupied(lo) */
    while (hi < last && occupied(d, hi)) {
        lo = hi;
        hi = 2 * hi + 1;
    }
    if (hi > last)
        hi = last;
    while (hi - lo > 1) { /* occupied(lo), and hi free or the last */
        int64_t mid = lo + (hi - lo) / 2;
        if (occupied(d, mid))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}
