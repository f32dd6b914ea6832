/* Parallel quicksort with scopes: each partition spawns its two halves into
 * the scope; the scope returns when the whole array is sorted.
 * Usage: spool_example_quicksort [n] */
#include <spool.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

static void sort_range(spool_scope_t *scope, void *arg)
{
    range_t *r = arg;
    if (r->hi - r->lo <= CUTOFF) {
        qsort(r->lo, (size_t)(r->hi - r->lo), sizeof *r->lo, compare_u32);
        free(r);
        return;
    }
    uint32_t *split = partition(r->lo, r->hi);
    range_t *left = malloc(sizeof *left), *right = malloc(sizeof *right);
    if (left == NULL || right == NULL) {
        free(left);
        free(right);
        qsort(r->lo, (size_t)(r->hi - r->lo), sizeof *r->lo, compare_u32);
    } else {
        *left = (range_t){r->lo, split};
        *right = (range_t){split, r->hi};
        if (spool_scope_spawn(scope, sort_range, left) != 0)
            sort_range(scope, left);
        sort_range(scope, right);
    }
    free(r);
}

static void sort_body(spool_scope_t *scope, void *arg)
{
    range_t *whole = malloc(sizeof *whole);
    if (whole == NULL)
        abort();
    *whole = *(range_t *)arg;
    sort_range(scope, whole);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
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
    spool_scope(sort_body, &all); /* runs in the global pool */
    for (size_t i = 1; i < n; i++) {
        if (data[i - 1] > data[i]) {
            printf("NOT sorted at %zu\n", i);
            return 1;
        }
    }
    printf("sorted %zu numbers on %u threads\n", n, spool_current_num_threads());
    free(data);
    return 0;
}
