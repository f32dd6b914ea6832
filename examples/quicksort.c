/* Parallel quicksort, in the two styles of spawning: task groups (each
 * partition opens a group, spawns the left half with a copy of its range,
 * sorts the right half itself, and waits), and one scope for the whole
 * sort (each partition spawns its left half into it).
 * Usage: spool_example_quicksort [n] [group|scope] */
#include <spool.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUTOFF 2048 /* below this, sort sequentially */

typedef struct range {
    uint32_t *lo, *hi; /* [lo, hi) */
} range_t;

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void swap(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Hoare partition around the median of three; returns the split point. */
static uint32_t *partition(uint32_t *lo, uint32_t *hi)
{
    uint32_t *mid = lo + (hi - lo) / 2, *last = hi - 1;
    if (*mid < *lo)
        swap(mid, lo);
    if (*last < *lo)
        swap(last, lo);
    if (*last < *mid)
        swap(last, mid);
    uint32_t pivot = *mid;
    uint32_t *i = lo - 1, *j = hi;
    for (;;) {
        do
            i++;
        while (*i < pivot);
        do
            j--;
        while (*j > pivot);
        if (i >= j)
            return j + 1;
        swap(i, j);
    }
}

/* ---- the group style: spawns from the caller's own frame ---------------- */

static void sort(uint32_t *lo, uint32_t *hi);

static void sort_job(spool_scope_t *scope, void *arg)
{
    (void)scope;
    const range_t *r = arg; /* the copy made at the spawn */
    sort(r->lo, r->hi);
}

/* As OpenMP's
 *     #pragma omp taskgroup
 *     { #pragma omp task firstprivate(lo, split)  sort(lo, split);
 *       sort(split, hi); } */
static void sort(uint32_t *lo, uint32_t *hi)
{
    if (hi - lo <= CUTOFF) {
        qsort(lo, (size_t)(hi - lo), sizeof *lo, compare_u32);
        return;
    }
    uint32_t *split = partition(lo, hi);
    spool_group_t g;
    spool_group_init(&g);
    range_t left = {lo, split};
    spool_group_spawn_copy(&g, sort_job, &left, sizeof left); /* may run elsewhere */
    sort(split, hi);                                          /* runs here */
    spool_group_wait(&g);
}

/* ---- the scope style: one scope, a body, spawns that carry their range ---- */

static void sort_range(spool_scope_t *scope, void *arg)
{
    range_t r = *(range_t *)arg;
    while (r.hi - r.lo > CUTOFF) {
        uint32_t *split = partition(r.lo, r.hi);
        range_t left = {r.lo, split};
        spool_scope_spawn_copy(scope, sort_range, &left, sizeof left);
        r.lo = split; /* the right half: here, in the same scope */
    }
    qsort(r.lo, (size_t)(r.hi - r.lo), sizeof *r.lo, compare_u32);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    int use_scope = argc > 2 && strcmp(argv[2], "scope") == 0;
    uint32_t *data = malloc(n * sizeof *data);
    if (data == NULL)
        return 1;
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (uint32_t)x;
    }
    range_t all = {data, data + n};
    if (use_scope)
        spool_scope(sort_range, &all); /* runs in the global pool */
    else
        sort(data, data + n); /* from outside: the jobs go to the global pool */
    for (size_t i = 1; i < n; i++) {
        if (data[i - 1] > data[i]) {
            printf("NOT sorted at %zu\n", i);
            return 1;
        }
    }
    printf("sorted %zu numbers on %u threads (%s)\n", n, spool_current_num_threads(),
           use_scope ? "one scope" : "task groups");
    free(data);
    return 0;
}
