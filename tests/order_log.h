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

#endif
