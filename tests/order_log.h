/* A mutex-protected log of ints, for the execution-order tests. */
#ifndef SPOOL_ORDER_LOG_H
#define SPOOL_ORDER_LOG_H

#include <pthread.h>

typedef struct order_log {
    pthread_mutex_t lock;
    int values[256];
    int len;
} order_log_t;

static inline void order_log_init(order_log_t *log)
{
    pthread_mutex_init(&log->lock, NULL);
    log->len = 0;
}

static inline void order_log_push(order_log_t *log, int v)
{
    pthread_mutex_lock(&log->lock);
    if (log->len < 256)
        log->values[log->len++] = v;
    pthread_mutex_unlock(&log->lock);
}

/* A value and the log it goes to, packed in one heap-free argument: tests
 * keep an array of these alive for the duration of the run. */
typedef struct order_item {
    order_log_t *log;
    int value;
} order_item_t;

/* cmocka assertions on a log (include cmocka.h first). */
static inline void expect_log(const order_log_t *log, const int *expected, int n)
{
    assert_int_equal(log->len, n);
    for (int k = 0; k < n; k++)
        if (log->values[k] != expected[k])
            fail_msg("position %d: got %d, expected %d", k, log->values[k], expected[k]);
}

/* The 100 values i * 10 + j of the nested order tests, in four orders. */
static inline int order_reversed(int k)
{
    return 99 - k;
}
static inline int order_natural(int k)
{
    return k;
}
static inline int order_i_rev_j_fwd(int k)
{
    return (9 - k / 10) * 10 + k % 10;
}
static inline int order_i_fwd_j_rev(int k)
{
    return (k / 10) * 10 + 9 - k % 10;
}

static inline void expect_log_100(const order_log_t *log, int (*value)(int k))
{
    int expected[100];
    for (int k = 0; k < 100; k++)
        expected[k] = value(k);
    expect_log(log, expected, 100);
}

#endif
