/*
 * Completion queues: spool_completions_* (see spool_task.h and task.md).
 *
 * A mutex guards the ring of tags and the descriptor's readiness, and a
 * condvar wakes a reader blocked in spool_completions_wait.  The descriptor
 * (an eventfd on Linux, else a pipe) is made readable by the post that
 * finds the queue empty and cleared by the take that empties it, both under
 * the mutex, so it is readable exactly while the queue holds tags: a reader
 * blocked in poll or epoll on it cannot miss a post, and a reader that
 * finds it readable finds a tag.  No lock-free protocol: nothing to model
 * check beyond the mutex.
 */
#include "task/task.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/eventfd.h>
#endif

#include "platform/test_hooks.h"

struct spool_completions {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC where the system has it */
    /* Guarded by lock. */
    void **ring;
    size_t cap, head, count;
    size_t reserved; /* tasks given this queue that have not posted yet */
    bool readable;   /* the descriptor says so */
    int rfd, wfd;    /* the same eventfd on Linux */
};

static int fd_open(spool_completions_t *cq)
{
#ifdef __linux__
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return errno;
    cq->rfd = cq->wfd = fd;
    return 0;
#else
    int fds[2];
    if (pipe(fds) != 0)
        return errno;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    cq->rfd = fds[0];
    cq->wfd = fds[1];
    return 0;
#endif
}

static void fd_close(spool_completions_t *cq)
{
    close(cq->rfd);
    if (cq->wfd != cq->rfd)
        close(cq->wfd);
}

/* Lock held: the descriptor becomes readable. */
static void fd_signal(spool_completions_t *cq)
{
#ifdef __linux__
    uint64_t one = 1;
    ssize_t r = write(cq->wfd, &one, sizeof one);
#else
    char one = 1;
    ssize_t r = write(cq->wfd, &one, 1);
#endif
    (void)r; /* a non-blocking write to an empty eventfd or pipe cannot fail */
}

/* Lock held: the descriptor stops being readable. */
static void fd_clear(spool_completions_t *cq)
{
#ifdef __linux__
    uint64_t value;
    ssize_t r = read(cq->rfd, &value, sizeof value);
#else
    char byte;
    ssize_t r = read(cq->rfd, &byte, 1);
#endif
    (void)r; /* it holds exactly what fd_signal wrote */
}

int spool_completions_create(spool_completions_t **out)
{
    if (out == NULL)
        return EINVAL;
    if (spool__test_alloc_fails())
        return ENOMEM;
    spool_completions_t *cq = calloc(1, sizeof *cq);
    if (cq == NULL)
        return ENOMEM;
    int err = pthread_mutex_init(&cq->lock, NULL);
    if (err != 0) {
        free(cq);
        return err;
    }
    pthread_condattr_t attr;
    err = pthread_condattr_init(&attr);
    if (err == 0) {
#if defined(_POSIX_MONOTONIC_CLOCK) && _POSIX_MONOTONIC_CLOCK >= 0
        (void)pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
#endif
        err = pthread_cond_init(&cq->cond, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (err != 0) {
        pthread_mutex_destroy(&cq->lock);
        free(cq);
        return err;
    }
    err = fd_open(cq);
    if (err != 0) {
        pthread_cond_destroy(&cq->cond);
        pthread_mutex_destroy(&cq->lock);
        free(cq);
        return err;
    }
    *out = cq;
    return 0;
}

int spool_completions_fd(const spool_completions_t *cq)
{
    return cq != NULL ? cq->rfd : -1;
}

int spool__completions_reserve(spool_completions_t *cq)
{
    pthread_mutex_lock(&cq->lock);
    int err = 0;
    if (cq->count + cq->reserved == cq->cap) {
        size_t cap = cq->cap != 0 ? 2 * cq->cap : 16;
        void **ring = spool__test_alloc_fails() ? NULL : malloc(cap * sizeof *ring);
        if (ring == NULL) {
            err = ENOMEM;
        } else {
            for (size_t i = 0; i < cq->count; i++)
                ring[i] = cq->ring[(cq->head + i) % cq->cap];
            free(cq->ring);
            cq->ring = ring;
            cq->cap = cap;
            cq->head = 0;
        }
    }
    if (err == 0)
        cq->reserved++;
    pthread_mutex_unlock(&cq->lock);
    return err;
}

void spool__completions_post(spool_completions_t *cq, void *tag)
{
    pthread_mutex_lock(&cq->lock);
    cq->ring[(cq->head + cq->count) % cq->cap] = tag; /* reserved: there is room */
    cq->count++;
    cq->reserved--;
    if (!cq->readable) {
        fd_signal(cq);
        cq->readable = true;
    }
    pthread_cond_signal(&cq->cond);
    /* The last access: destroy may free cq once reserved is 0 and the lock
     * is free. */
    pthread_mutex_unlock(&cq->lock);
}

/* Lock held: moves up to max tags out; clears the descriptor if that
 * empties the queue. */
static size_t take_locked(spool_completions_t *cq, void **tags, size_t max)
{
    size_t n = cq->count < max ? cq->count : max;
    for (size_t i = 0; i < n; i++)
        tags[i] = cq->ring[(cq->head + i) % cq->cap];
    if (n > 0) {
        cq->head = (cq->head + n) % cq->cap;
        cq->count -= n;
    }
    if (cq->count == 0 && cq->readable) {
        fd_clear(cq);
        cq->readable = false;
    }
    return n;
}

size_t spool_completions_take(spool_completions_t *cq, void **tags, size_t max)
{
    if (cq == NULL || tags == NULL || max == 0)
        return 0;
    pthread_mutex_lock(&cq->lock);
    size_t n = take_locked(cq, tags, max);
    pthread_mutex_unlock(&cq->lock);
    return n;
}

size_t spool_completions_wait(spool_completions_t *cq, void **tags, size_t max, int timeout_ms)
{
    if (cq == NULL || tags == NULL || max == 0)
        return 0;
    struct timespec deadline;
    if (timeout_ms > 0) {
#if defined(_POSIX_MONOTONIC_CLOCK) && _POSIX_MONOTONIC_CLOCK >= 0
        clock_gettime(CLOCK_MONOTONIC, &deadline);
#else
        clock_gettime(CLOCK_REALTIME, &deadline);
#endif
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&cq->lock);
    while (cq->count == 0 && timeout_ms != 0) {
        if (timeout_ms < 0) {
            pthread_cond_wait(&cq->cond, &cq->lock);
        } else if (pthread_cond_timedwait(&cq->cond, &cq->lock, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    size_t n = take_locked(cq, tags, max);
    pthread_mutex_unlock(&cq->lock);
    return n;
}

int spool_completions_destroy(spool_completions_t *cq)
{
    if (cq == NULL)
        return EINVAL;
    pthread_mutex_lock(&cq->lock);
    bool busy = cq->reserved > 0;
    pthread_mutex_unlock(&cq->lock);
    if (busy)
        return EBUSY;
    fd_close(cq);
    free(cq->ring);
    pthread_cond_destroy(&cq->cond);
    pthread_mutex_destroy(&cq->lock);
    free(cq);
    return 0;
}
