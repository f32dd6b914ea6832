/* The queue of a job FIFO: its slow paths (fifo_queue.h; fifo.md). */
#include "queue/fifo_queue.h"

#include <errno.h>
#include <stdlib.h>

#include "platform/test_hooks.h"

/* A model checker's client sets smaller ones, to reach new segments and the
 * reuse of a ring's slots. */
#ifndef SPOOL__FIFO_QUEUE_INITIAL_CAPACITY
#define SPOOL__FIFO_QUEUE_INITIAL_CAPACITY 64
#endif
/* 1 MiB of slots: a burst gets segments of this size, and a FIFO that lives
 * on (a worker's) keeps one at most once drained. */
#ifndef SPOOL__FIFO_QUEUE_MAX_CAPACITY
#define SPOOL__FIFO_QUEUE_MAX_CAPACITY 65536
#endif

static spool__fifo_seg_t *seg_new(int64_t capacity, int64_t start)
{
    spool__fifo_seg_t *s = malloc(sizeof *s + (size_t)capacity * sizeof s->slots[0]);
    if (s == NULL)
        return NULL;
    s->start = start;
    s->mask = capacity - 1;
    atomic_init(&s->next, NULL);
    return s;
}

int spool__fifo_queue_init(spool__fifo_queue_t *q)
{
    spool__fifo_seg_t *s = seg_new(SPOOL__FIFO_QUEUE_INITIAL_CAPACITY, 0);
    if (s == NULL)
        return ENOMEM;
    atomic_init(&q->front, 0);
    atomic_init(&q->head, s);
    q->back = 0;
    q->limit = SPOOL__FIFO_QUEUE_INITIAL_CAPACITY;
    q->tail = s;
    q->oldest = s;
    return 0;
}

void spool__fifo_queue_destroy(spool__fifo_queue_t *q)
{
    while (q->oldest != NULL) {
        spool__fifo_seg_t *next = atomic_load_explicit(&q->oldest->next, memory_order_relaxed);
        free(q->oldest);
        q->oldest = next;
    }
}

/* Frees every segment but the newest; the queue is empty, so every
 * reference is spent and no taker is reading one (the caller's acquire load
 * of front saw the last take). */
static void free_drained(spool__fifo_queue_t *q)
{
    while (q->oldest != q->tail) {
        spool__fifo_seg_t *next = atomic_load_explicit(&q->oldest->next, memory_order_relaxed);
        free(q->oldest);
        q->oldest = next;
    }
    /* Release pairs with the takers' acquire load of head.  (Any later
     * taker gets its reference from us after this store anyway.) */
    atomic_store_explicit(&q->head, q->tail, memory_order_release);
}

bool spool__fifo_queue_make_room(spool__fifo_queue_t *q)
{
    int64_t b = q->back;
    spool__fifo_seg_t *tail = q->tail;
    /* Acquire pairs with the takers' release CAS on front: a call below
     * front was read by its taker before its slot is reused or its segment
     * freed. */
    int64_t f = atomic_load_explicit(&q->front, memory_order_acquire);
    if (f == b && q->oldest != tail)
        free_drained(q);
    /* Slot b of tail's ring is free if its call of the previous lap was
     * taken, or if that lap lay before tail's start (never used). */
    int64_t lap_start = f > tail->start ? f : tail->start;
    q->limit = lap_start + tail->mask + 1;
    if (b < q->limit)
        return true;
    if (spool__test_deque_grow_fails())
        return false;
    int64_t capacity = 2 * (tail->mask + 1);
    if (capacity > SPOOL__FIFO_QUEUE_MAX_CAPACITY)
        capacity = SPOOL__FIFO_QUEUE_MAX_CAPACITY;
    spool__fifo_seg_t *s = seg_new(capacity, b);
    if (s == NULL)
        return false;
    /* Release pairs with the takers' acquire load of next in
     * spool__fifo_queue_take: a taker that finds s sees its start and mask. */
    atomic_store_explicit(&tail->next, s, memory_order_release);
    q->tail = s;
    q->limit = b + capacity;
    return true;
}
