/*
 * GenMC client for the lock latch's atomic hand-off (src/sleep/latch.c), under
 * RC11 and IMM.  A setter thread writes a plain result and sets the latch;
 * the waiter (main) looks at it a bounded number of times, the way
 * spool__lock_latch_wait spins, and once it sees it set reads the result and
 * frees the latch, as a returning waiter's caller does.  GenMC reports a
 * data race if the result is not published by the set, and an access to
 * freed memory if the setter touches the latch after the waiter could see
 * it set.  (The blocking path waits on a condvar, which GenMC does not
 * model: model/lock_latch.pml checks it.)
 *
 * Mutants (model/genmc/check.sh): lock-latch-set-relaxed
 * and lock-latch-seen-relaxed must be rejected.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* GenMC's pthread.h has no condition variables: stand-ins, never reached
 * on the path checked here (the waiter does not block). */
typedef struct {
    int unused;
} pthread_cond_t;
static int pthread_cond_init(pthread_cond_t *c, const void *attr)
{
    (void)c;
    (void)attr;
    return 0;
}
static int pthread_cond_destroy(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static int pthread_cond_broadcast(pthread_cond_t *c)
{
    (void)c;
    abort();
}
static int pthread_cond_signal(pthread_cond_t *c)
{
    (void)c;
    abort();
}
static int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    (void)c;
    (void)m;
    abort();
}
#ifndef ENOTRECOVERABLE
#define ENOTRECOVERABLE 131
#endif

#include "sleep/latch.c"

/* The tuning (tuning.c) that latch.c reads: the wait path is not run
 * here (the waiter's own bounded look is main's). */
spool__tuning_t spool__tuning;

/* What latch.c's spin latch calls elsewhere in spool (sleep/sleep.c); never
 * reached on this path. */
bool spool__sleep_wake_specific_thread(spool__sleep_t *s, unsigned index)
{
    (void)s;
    (void)index;
    abort();
}

static int result; /* the job's output, plain */

static void *setter(void *arg)
{
    result = 42;
    spool__lock_latch_set(arg);
    return NULL;
}

int main(void)
{
    spool__lock_latch_t *l = malloc(sizeof *l);
    atomic_init(&l->state, SPOOL__LOCK_LATCH_UNSET);
    pthread_t t;
    pthread_create(&t, NULL, setter, l);
    for (int look = 0; look < 2; look++) {
        if (lock_latch_is_set(l)) {
            assert(result == 42);
            free(l); /* the waiter returns; its caller's frame goes */
            return 0;
        }
    }
    /* Not seen set: the waiter would block (the spin model's part); here it
     * just lets the setter finish before freeing. */
    pthread_join(t, NULL);
    free(l);
    return 0;
}
