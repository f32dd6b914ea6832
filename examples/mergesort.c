/* Cilk's merge sort with a parallel merge, written with typed tasks
 * (spool_typed.h): each task a plain C function of typed arguments,
 * SPOOL_SPAWN to offer a call to thieves, SPOOL_SYNC to take it back.
 * Usage: spool_example_mergesort [n] */
#include <spool_typed.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SORT_CUTOFF 2048  /* below this, sort sequentially */
#define MERGE_CUTOFF 4096 /* below this, merge sequentially */

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The first index of b[0..n) whose value is not below v. */
static size_t lower_bound(const uint32_t *b, size_t n, uint32_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Merges sorted a[0..na) and b[0..nb) into out: the longer run's middle
 * value splits both, and the two halves merge in parallel. */
SPOOL_VOID_TASK_5(merge, const uint32_t *, a, size_t, na, const uint32_t *, b, size_t, nb,
                  uint32_t *, out)
{
    if (na < nb) {
        const uint32_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    if (na + nb <= MERGE_CUTOFF) {
        size_t i = 0, j = 0, k = 0;
        while (i < na && j < nb)
            out[k++] = b[j] < a[i] ? b[j++] : a[i++];
        memcpy(out + k, a + i, (na - i) * sizeof *out);
        memcpy(out + k + na - i, b + j, (nb - j) * sizeof *out);
        return;
    }
    size_t ma = na / 2, mb = lower_bound(b, nb, a[ma]);
    out[ma + mb] = a[ma];
    SPOOL_SPAWN(merge, a, ma, b, mb, out);
    SPOOL_CALL(merge, a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1);
    SPOOL_SYNC(merge);
}

/* Copies src[0..n) to dst in halves. */
SPOOL_VOID_TASK_3(copy, uint32_t *, dst, const uint32_t *, src, size_t, n)
{
    if (n <= 1u << 16) {
        memcpy(dst, src, n * sizeof *dst);
        return;
    }
    SPOOL_SPAWN(copy, dst, src, n / 2);
    SPOOL_CALL(copy, dst + n / 2, src + n / 2, n - n / 2);
    SPOOL_SYNC(copy);
}

/* Sorts a[0..n), with tmp[0..n) as room: both halves at once, then the
 * parallel merge into tmp and the copy back.  Returns the number of
 * sequential pieces, to show that the result travels back. */
SPOOL_TASK_3(long, sort, uint32_t *, a, uint32_t *, tmp, size_t, n)
{
    if (n <= SORT_CUTOFF) {
        qsort(a, n, sizeof *a, compare_u32);
        return 1;
    }
    size_t h = n / 2;
    SPOOL_SPAWN(sort, a, tmp, h);
    long pieces = SPOOL_CALL(sort, a + h, tmp + h, n - h);
    pieces += SPOOL_SYNC(sort);
    SPOOL_CALL(merge, a, h, a + h, n - h, tmp);
    SPOOL_CALL(copy, a, tmp, n);
    return pieces;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *tmp = malloc(n * sizeof *tmp);
    if (n == 0 || a == NULL || b == NULL || tmp == NULL) {
        fprintf(stderr, "mergesort: bad size or no memory\n");
        return 1;
    }
    uint64_t x = 88172645463325252u, sum = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = b[i] = (uint32_t)x;
        sum += (uint32_t)x;
    }
    double t0 = now();
    qsort(b, n, sizeof *b, compare_u32);
    double t1 = now();
    long pieces = SPOOL_RUN(sort, a, tmp, n); /* in the global pool, this thread helping */
    double t2 = now();
    uint64_t check = 0;
    for (size_t i = 0; i < n; i++) {
        check += a[i];
        if (a[i] != b[i] || (i > 0 && a[i - 1] > a[i])) {
            fprintf(stderr, "mergesort: wrong at %zu\n", i);
            return 1;
        }
    }
    if (check != sum) {
        fprintf(stderr, "mergesort: the values changed\n");
        return 1;
    }
    printf("sorted %zu values in %ld pieces: qsort %.3f s, typed-task merge sort %.3f s on %u "
           "threads\n",
           n, pieces, t1 - t0, t2 - t1, spool_current_num_threads());
    free(a);
    free(b);
    free(tmp);
    return 0;
}
