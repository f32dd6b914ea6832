/*
 * The lock latch (src/sleep/latch.h, latch.c): how a thread outside any pool waits
 * for a job, and when it may free the latch.  spin explores every
 * interleaving of one setter and one waiter.
 *
 * The waiter spins on state for a while (any number of looks here), then
 * takes the mutex and CASes UNSET -> BLOCKING; if that fails the latch is
 * SET and it returns; else it waits on the condvar until is_set.  The
 * setter exchanges SET into state; only if it replaced BLOCKING does it take
 * the mutex, set is_set and signal.  When the waiter returns it frees the
 * latch (freed): every access of the setter asserts that it has not.
 *
 * Checked: no invalid end state (the waiter never sleeps for good) and no
 * assertion failure (the setter never touches a freed latch).
 *
 * Deliberate bugs, for showing that the model can fail:
 *   -DALWAYS_LOCK          the setter always takes the mutex (the latch before
 *                          the waiter spun): a waiter that saw SET frees it first
 *   -DNO_BLOCKING_STATE    the waiter blocks without announcing BLOCKING: the
 *                          setter does not signal, a lost wake-up
 *   -DSET_WITHOUT_MUTEX    the setter sets is_set and signals without the
 *                          mutex: the signal can fall between the waiter's
 *                          check and its wait
 */

#define UNSET 0
#define BLOCKING 1
#define SET 2

byte state = UNSET;
bool mutex;          /* held */
bool is_set;         /* guarded by mutex */
bool in_wait;        /* the waiter is in pthread_cond_wait */
bool signalled;
bool freed;

inline lock() { atomic { !mutex -> mutex = true } }
inline unlock() { mutex = false }

proctype setter() {
    byte old;
    atomic { assert(!freed); old = state; state = SET };
#ifndef ALWAYS_LOCK
    if
    :: old == BLOCKING ->
#else
    if
    :: true ->
#endif
#ifndef SET_WITHOUT_MUTEX
        assert(!freed); lock();
#endif
        assert(!freed); is_set = true;
        atomic { assert(!freed); if :: in_wait -> signalled = true :: else fi };
#ifndef SET_WITHOUT_MUTEX
        assert(!freed); unlock()
#endif
    :: else
    fi
}

proctype waiter() {
    /* spin: look at state any number of times */
    do
    :: state == SET -> goto done
    :: break
    od;
    lock();
#ifndef NO_BLOCKING_STATE
    if
    :: atomic { state == UNSET -> state = BLOCKING } ->
#else
    if
    :: state != SET ->
#endif
        do
        :: is_set -> break
        :: !is_set ->
            /* pthread_cond_wait: release the mutex and wait, atomically */
            atomic { in_wait = true; unlock() };
            signalled;
            atomic { in_wait = false; signalled = false };
            lock()
        od
    :: else
    fi;
    unlock();
done:
    freed = true
}

init {
    atomic { run setter(); run waiter() }
}
