/*
 * A model of an isolated waiter's sleep and wake-up (src/isolate/isolate.md), for
 * spin.
 *
 * Worker W waits inside isolation region R on its latch L: it searches
 * only for jobs of R (its own deque has none; worker T's public part may
 * hold one), never for the job that an outside thread injected (not of R).
 * Finding nothing it goes to sleep as an isolated sleeper: L to SLEEPY
 * and, under its mutex, SLEEPING; it counts itself in isolated_sleepers,
 * then (SleepFence) looks once more, exactly, for a public job of R; if
 * there is none it blocks until woken.  T holds a private job J of R,
 * publishes it at some point (a demand, rule 1 or rule 3: any moment) and
 * then (PushFence) reads isolated_sleepers and wakes every isolated sleeper
 * if it is not zero.  T then waits until J has run elsewhere (so W must
 * run it: a sleeping W must be woken), and at last sets L, whose setter
 * wakes W if it sleeps on it.  A worker U takes the injected job.
 *
 * A lost wake-up leaves W blocked while T waits for J: spin reports an
 * invalid end state.  W taking the injected job fails an assertion.
 *
 * Memory model, as in sleep.pml: spin's steps are sequentially consistent;
 * an ordinary search may miss J after its publication (nothing orders it),
 * and only the two fenced reads are exact: T's read of isolated_sleepers
 * after PushFence and W's final check after SleepFence.
 *
 * Deliberate bugs, for showing that the model can fail:
 *   -DNO_ISO_WAKE          publication does not wake isolated sleepers
 *   -DNO_ISO_FINAL_CHECK   the isolated sleeper skips its final check
 *   -DISO_TAKES_ANY        the isolated waiter takes a job of another region
 */

#define UNSET 0
#define SLEEPY 1
#define SLEEPING 2
#define SET 3

byte latch = UNSET;       /* W's latch L */
bool mutex;               /* W's sleep mutex */
bool blocked;             /* W's is_blocked, guarded by mutex */
bool isolated;            /* W's isolated flag, guarded by mutex */
byte iso_sleepers;        /* isolated sleepers (counted and not yet awake) */
bool j_public;            /* T's job J (region R) is public */
bool j_done;              /* J has run */
byte injector = 1;        /* the injected job (no region) */
bool n_done;              /* it has run */

inline lock(m) { atomic { !m -> m = true } }
inline unlock(m) { m = false }

proctype worker_w() {
    byte rounds;
    bool ok;
search:
    if
    :: latch == SET -> goto finish
    :: else
    fi;
    atomic {
        if
        :: j_public && !j_done -> j_public = false; ok = true   /* take J */
        :: true -> ok = false      /* found nothing, or J's publication not seen yet */
#ifdef ISO_TAKES_ANY
        :: injector > 0 -> injector--; assert(false)   /* not of R: must never be taken */
#endif
        fi
    };
    if
    :: ok -> j_done = true; rounds = 0; goto search
    :: else
    fi;
    if
    :: rounds < 1 -> rounds++; goto search
    :: else
    fi;
    /* fall asleep, isolated */
    atomic {
        if
        :: latch == UNSET -> latch = SLEEPY; ok = true
        :: else -> ok = false
        fi
    };
    if
    :: !ok -> goto search
    :: else
    fi;
    lock(mutex);
    atomic {
        if
        :: latch == SLEEPY -> latch = SLEEPING; ok = true
        :: else -> ok = false
        fi
    };
    if
    :: !ok -> unlock(mutex); rounds = 0; goto search
    :: else
    fi;
    iso_sleepers++;
    /* SleepFence, then the exact final check */
#ifndef NO_ISO_FINAL_CHECK
    if
    :: j_public && !j_done -> goto awake
    :: else
    fi;
#endif
    isolated = true;
    blocked = true;
    unlock(mutex);           /* the condvar wait releases the mutex... */
    !blocked;                /* ...until a waker clears the flag */
    lock(mutex);
    isolated = false;
awake:
    iso_sleepers--;
    atomic { if :: latch == SLEEPING -> latch = UNSET :: else fi };
    unlock(mutex);
    rounds = 0;
    goto search
finish:
    skip
}

/* Wakes W if it is blocked as an isolated sleeper. */
inline wake_isolated() {
    lock(mutex);
    if
    :: blocked && isolated -> blocked = false
    :: else
    fi;
    unlock(mutex)
}

proctype worker_t() {
    byte old, seen;
    /* J private; published at any moment (a thief's demand, rule 1 or 3) */
    j_public = true;
    /* PushFence, then the count */
    seen = iso_sleepers;
#ifndef NO_ISO_WAKE
    if
    :: seen > 0 -> wake_isolated()
    :: else
    fi;
#endif
    j_done;                  /* T's long job waits until J ran elsewhere */
    /* W's wait ends: its latch is set, which wakes it if it sleeps on it */
    atomic { old = latch; latch = SET };
    if
    :: old == SLEEPING ->
        lock(mutex);
        if
        :: blocked -> blocked = false
        :: else
        fi;
        unlock(mutex)
    :: else
    fi
}

proctype worker_u() {
    /* not isolated: takes the injected job */
    atomic { injector > 0 -> injector--; n_done = true }
}

init {
    atomic {
        run worker_w();
        run worker_t();
        run worker_u()
    }
}
