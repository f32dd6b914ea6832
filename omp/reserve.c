/* Reserve threads (reserve.h): plain threads that wait on a condition
 * variable for a member's implicit task, run it, and wait again.  They
 * exist only while OMP_DYNAMIC=false asks for more threads than the pool
 * has idle, and stay for the next such region, as libgomp's do. */
#include "reserve.h"

#include <pthread.h>
#include <stdlib.h>

#include "omp_impl.h"

typedef struct reserve {
    pthread_cond_t cond;
    void (*fn)(void *); /* guarded by lock: the work handed over, or NULL */
    void *arg;
    struct reserve *next; /* on the free list */
} reserve_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static reserve_t *free_list; /* guarded by lock */

static void *reserve_main(void *p)
{
    reserve_t *r = p;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (r->fn == NULL)
            pthread_cond_wait(&r->cond, &lock);
        void (*fn)(void *) = r->fn;
        void *arg = r->arg;
        pthread_mutex_unlock(&lock);
        fn(arg);
        pthread_mutex_lock(&lock);
        r->fn = NULL;
        r->next = free_list;
        free_list = r;
    }
    return NULL;
}

bool spool__omp_reserve_run(void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&lock);
    reserve_t *r = free_list;
    if (r != NULL) {
        free_list = r->next;
        r->fn = fn;
        r->arg = arg;
        pthread_cond_signal(&r->cond);
        pthread_mutex_unlock(&lock);
        return true;
    }
    pthread_mutex_unlock(&lock);
    r = malloc(sizeof *r);
    if (r == NULL || pthread_cond_init(&r->cond, NULL) != 0) {
        free(r);
        return false;
    }
    r->fn = fn;
    r->arg = arg;
    pthread_attr_t attr;
    pthread_t t;
    int err = pthread_attr_init(&attr);
    if (err == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (spool__omp_env.stack_size != 0)
            pthread_attr_setstacksize(&attr, spool__omp_env.stack_size);
        err = pthread_create(&t, &attr, reserve_main, r);
        pthread_attr_destroy(&attr);
    }
    if (err != 0) {
        pthread_cond_destroy(&r->cond);
        free(r);
        return false;
    }
    return true;
}
