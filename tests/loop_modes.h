/* What the loop and reduce tests share: the pool sizes and option sets
 * every loop runs through, running a job in a pool or on this thread, and a
 * sum reducer. */
#ifndef SPOOL_TEST_LOOP_MODES_H
#define SPOOL_TEST_LOOP_MODES_H

#include "spool.h"
#include "test_util.h"

static const unsigned pool_sizes[] = {1, 2, 3, 7};
enum { NUM_POOL_SIZES = sizeof pool_sizes / sizeof pool_sizes[0] };

/* Runs fn(arg) in pool, or on this thread (outside any pool) if pool is NULL. */
static inline void run_in(spool_pool_t *pool, spool_fn fn, void *arg)
{
    if (pool == NULL)
        fn(arg);
    else
        assert_int_equal(spool_pool_install(pool, fn, arg), 0);
}

/* The option sets every loop test runs through. */
static const spool_for_opts_t modes[] = {
    {0, 0, 0},   {1, 0, 0},  {3, 0, 0},  {0, 1, 0},  {0, 7, 0},  {2, 5, 0}, {10, 3, 0},
    {0, 0, SPOOL_FOR_FIXED}, {3, 0, SPOOL_FOR_FIXED}, {16, 0, SPOOL_FOR_FIXED},
};
enum { NUM_MODES = sizeof modes / sizeof modes[0] };

/* A sum of 1/(i+1): the reducer of W11. */
static inline void sum_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0.0;
}
static inline void sum_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    (void)ctx;
    double s = *(double *)acc;
    for (size_t i = begin; i < end; i++)
        s += 1.0 / (double)(i + 1);
    *(double *)acc = s;
}
static inline void sum_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left = *(double *)left + *(const double *)right;
}
static const spool_reducer_t sum_reducer = {sizeof(double), sum_identity, sum_fold, sum_combine};

#endif
