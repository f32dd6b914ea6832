/*
 * A model of spool's sleep protocol and core latch (src/sleep/sleep.md), for spin.
 *
 * Workers search for work (a deque job, injected jobs), get sleepy, and sleep
 * on a mutex + condvar, following the fall-asleep protocol step by step.
 * Worker 0 first posts an internal job J on its own deque and then runs a
 * long task that waits until J has run elsewhere (so J must be stolen, and a
 * sleeping thief must be woken for it).  An outside thread injects jobs, waits
 * until every job has run, then sets each worker's terminate latch (the core
 * latch: UNSET, SLEEPY, SLEEPING, SET), which must wake a sleeping owner.
 *
 * A lost wake-up leaves some process blocked forever: spin reports it as an
 * invalid end state (no process can move, and not all are at their end).
 *
 * Memory model.  Spin interleaves atomic steps sequentially consistently.
 * The weak-memory effect the fences exist for is modelled explicitly: an
 * ordinary search may miss a job another thread injected (its push need not
 * be visible yet: no fence orders the search after it).  Only two reads are
 * exact, the two that the seq-cst fence pair orders: the poster's read of the
 * counters after PushFence, and the sleeper's final injector check after
 * SleepFence.  Deque jobs are always seen (internal work may be overlooked by
 * the protocol anyway; the JEC is what protects it).  The JEC is one bit wide
 * (JEC_MOD 2), so it rolls over as soon as possible.
 *
 * -DBROADCAST: the outside thread also broadcasts (broadcast.c): it queues
 * one job on every worker's own broadcast queue, then (PushFence, read the
 * counters) bumps the JEC and, if any worker sleeps, wakes every sleeping
 * worker; it waits until every worker has run its part.  A worker takes
 * only its own queue's jobs; an ordinary search may miss them, the final
 * check after SleepFence may not.
 *
 * -DSPLIT: the split deque (src/deque/deque.md).  Worker 0 also pushes a private
 * job P after J (J, pushed on an empty deque, is public).  Searching workers
 * never see P; a search that finds worker 0's public part empty raises
 * demand.  After its task, worker 0 goes on forking (modelled: it blocks
 * until demand is raised, which a real owner sees at its next fork or pop),
 * publishes P with the post-work protocol, and waits until P has run
 * elsewhere: a thief that raised demand and fell asleep must be woken.
 *
 * -DLEND: a layer above claims worker 1 for a lend (src/scheduler/lend.md):
 * each worker's dock is IDLE while it searches, BUSY while it runs a job,
 * or CLAIMED; the lender CASes IDLE to CLAIMED once it finds it idle, then
 * (ClaimFence) reads the counters and wakes worker 1 if anyone sleeps, and
 * waits until the lend has run.  A worker looks at its dock every round
 * (an ordinary look may miss the claim, as a search may miss a push; the
 * final check after SleepFence may not), and a worker whose take found a
 * job CASes IDLE to BUSY, running a claim that came first after that job.
 *
 * Fresh workers: a pool starts with every worker counted idle (inactive),
 * and a worker's first search does not count it again (sleep.md); here
 * worker 0 starts active (it found its job), workers 1.. fresh, so a poster
 * may find an idle worker that has not searched yet and wake no one.
 *
 * Deliberate bugs, for showing that the model can fail:
 *   -DFRESH_COUNTED_TWICE   a fresh worker's first search counts it again
 *                           (a poster then sees an idle searcher that is
 *                           not there, and wakes no one)
 *   -DNO_PUBLISH_POST       (SPLIT) publication skips the post-work protocol
 *   -DNO_DEMAND             (SPLIT) a failed steal does not raise demand
 *   -DNO_FINAL_CHECK        the sleeper skips the final injector check
 *   -DNO_JEC_BUMP           posting a job does not bump the JEC
 *   -DNO_BCAST_FINAL_CHECK  the final check looks at the injector only, not
 *                           at the worker's broadcast queue (rayon PR 992)
 *   -DNO_LEND_CHECK         (LEND) the final check does not look at the dock

 */

#ifndef W
#define W 2          /* workers */
#endif
#ifndef INJECT
#define INJECT 2     /* jobs injected from outside */
#endif
#define JEC_MOD 2
#define ROUNDS 1     /* fruitless rounds before getting sleepy */

#define UNSET 0
#define SLEEPY 1
#define SLEEPING 2
#define SET 3

#define BUSY 0          /* a worker's dock (LEND) */
#define IDLE 1
#define CLAIMED 2

byte sleeping, inactive, jec;   /* the packed counters, updated atomically */
byte injector;                  /* jobs in the injector */
byte deque;                     /* jobs on worker 0's deque */
byte done;                      /* jobs finished */
bool internal_done;             /* J has run */
bool mutex[W];                  /* each worker's sleep mutex (true = held) */
bool blocked[W];                /* is_blocked, guarded by mutex[i] */
byte latch[W];                  /* each worker's terminate latch */
byte bq[W];                     /* broadcast jobs queued for each worker */
byte bdone;                     /* broadcast parts run */
byte pdeque;                    /* published P on worker 0's deque (SPLIT) */
bool demand;                    /* worker 0's demand flag (SPLIT) */
bool p_done;                    /* P has run (SPLIT) */
byte dock[W];                   /* each worker's dock (LEND) */
bool lent_done;                 /* the lend has run (LEND) */

inline lock(m) { atomic { !m -> m = true } }
inline unlock(m) { m = false }

/* Wake worker i if it is blocked; the waker takes it off the count. */
inline wake_specific(i, woke) {
    lock(mutex[i]);
    if
    :: blocked[i] -> blocked[i] = false; sleeping--; woke = true
    :: else -> woke = false
    fi;
    unlock(mutex[i])
}

inline wake_any(count) {
    k = 0;
    do
    :: count > 0 && k < W ->
        wake_specific(k, woke);
        if
        :: woke -> count--
        :: else
        fi;
        k++
    :: else -> break
    od
}

/* Post-work protocol, steps 3 and 4 (step 2, the fence, is implicit). */
inline new_jobs(was_empty) {
    atomic {
#ifndef NO_JEC_BUMP
        if
        :: jec % 2 == 0 -> jec = (jec + 1) % JEC_MOD
        :: else
        fi;
#endif
        c_sleeping = sleeping;
        c_inactive = inactive
    };
    if
    :: c_sleeping > 0 ->
        if
        :: !was_empty -> wanted = 1
        :: was_empty && c_inactive - c_sleeping < 1 -> wanted = 1
        :: else -> wanted = 0
        fi;
        wake_any(wanted)
    :: else
    fi
}

/* Core latch set: only replacing SLEEPING wakes the owner. */
inline latch_set(i) {
    atomic { old = latch[i]; latch[i] = SET };
    if
    :: old == SLEEPING -> wake_specific(i, woke)
    :: else
    fi
}

proctype worker(byte me) {
    byte rounds, myjec, job, k, c_sleeping, c_inactive, wanted, seen;
    bool woke, ok, was_empty, pending;

    if
    :: me == 0 ->
        /* join-like: push J, then a task that needs J run by a thief */
        atomic { was_empty = (deque == 0); deque++ };
        new_jobs(was_empty);
        internal_done;
#ifdef SPLIT
        /* P was pushed private after J; the owner publishes it at its
         * first fork or pop after a thief asked */
        demand;
        atomic { was_empty = (deque == 0 && pdeque == 0); pdeque++; demand = false };
#ifndef NO_PUBLISH_POST
        new_jobs(was_empty);
#endif
        p_done
#endif
    :: else
    fi;

    /* wait_until(terminate latch).  Workers 1.. are fresh: counted idle
     * since the pool's start (init), their first search does not count
     * them again; worker 0 found work (its job) and is active. */
    if
    :: me == 0 -> atomic { inactive++; assert(inactive <= W) }
#ifdef FRESH_COUNTED_TWICE
    :: me != 0 -> atomic { inactive++; assert(inactive <= W) }
#else
    :: me != 0 -> skip
#endif
    fi;
    rounds = 0;
search:
    if
    :: latch[me] == SET -> goto finish
    :: else
    fi;
#ifdef LEND
    /* the top level's search: the dock is open; its look at the dock may
     * miss a claim (not yet visible) */
    atomic { if :: dock[me] == BUSY -> dock[me] = IDLE :: else fi };
    job = 0;
    atomic {
        if
        :: dock[me] == CLAIMED -> dock[me] = BUSY; job = 5
        :: true -> skip
        fi
    };
    if
    :: job == 5 -> goto found
    :: else
    fi;
#endif
    atomic {
        if
        :: deque > 0 -> deque--; job = 1
        :: pdeque > 0 -> pdeque--; job = 4
        :: else ->
#if defined(SPLIT) && !defined(NO_DEMAND)
            /* worker 0's public part is empty: ask for its private jobs */
            if
            :: me != 0 -> demand = true
            :: else
            fi;
#endif
            if
            :: bq[me] > 0 -> bq[me]--; job = 3
            :: injector > 0 -> injector--; job = 2
            :: true -> job = 0   /* empty, or the push is not visible yet */
            fi
        fi
    };
#ifdef LEND
    /* a job found: the dock closes, unless a claim came first (then it
     * runs after the job) */
    pending = false;
    if
    :: job != 0 ->
        atomic {
            if
            :: dock[me] == IDLE -> dock[me] = BUSY
            :: dock[me] == CLAIMED -> dock[me] = BUSY; pending = true
            :: else
            fi
        }
    :: else
    fi;
found:
#endif
    if
    :: job != 0 ->
        /* work found: active again.  It wakes one sleeper if it sees jobs
         * left (sleep.md, "Wake-ups on work found"), a hint read with
         * relaxed loads: here it may miss them (skip), and sees only jobs
         * that are there.  (Rayon's two wake-ups each time: no lost
         * wake-up either, 34.7M states; never any: 7.9M.) */
        atomic { inactive--; c_sleeping = sleeping; seen = deque + injector };
        if
        :: c_sleeping > 0 && seen > 0 -> wanted = 1; wake_any(wanted)
        :: true -> skip
        fi;
        atomic {
            if
            :: job == 1 -> internal_done = true; done++
            :: job == 2 -> done++
            :: job == 3 -> bdone++
            :: job == 4 -> p_done = true
            :: job == 5 -> lent_done = true
            fi;
            if
            :: pending -> lent_done = true; pending = false
            :: else
            fi
        };
        atomic { inactive++; assert(inactive <= W) };
        rounds = 0;
        goto search
    :: else
    fi;

    if
    :: rounds < ROUNDS -> rounds++; goto search
    :: rounds == ROUNDS ->
        /* get sleepy: make the JEC even, remember it */
        atomic {
            if
            :: jec % 2 == 1 -> jec = (jec + 1) % JEC_MOD
            :: else
            fi;
            myjec = jec
        };
        rounds++;
        goto search
    :: else
    fi;

    /* fall asleep */
    atomic {
        if
        :: latch[me] == UNSET -> latch[me] = SLEEPY; ok = true
        :: else -> ok = false
        fi
    };
    if
    :: !ok -> goto search
    :: else
    fi;
    lock(mutex[me]);
    atomic {
        if
        :: latch[me] == SLEEPY -> latch[me] = SLEEPING; ok = true
        :: else -> ok = false
        fi
    };
    if
    :: !ok -> unlock(mutex[me]); rounds = 0; goto search
    :: else
    fi;
    /* the JEC check and the CAS that counts us as sleeping */
    atomic {
        if
        :: jec != myjec -> ok = false
        :: else -> sleeping++; ok = true
        fi
    };
    if
    :: !ok ->
        rounds = ROUNDS;    /* wake partly: one more search, then sleepy */
        atomic { if :: latch[me] == SLEEPING -> latch[me] = UNSET :: else fi };
        unlock(mutex[me]);
        goto search
    :: else
    fi;
#ifndef NO_FINAL_CHECK
    if
    :: injector > 0 -> atomic { sleeping-- }; goto awake
#ifndef NO_BCAST_FINAL_CHECK
    :: bq[me] > 0 -> atomic { sleeping-- }; goto awake
#endif
#if defined(LEND) && !defined(NO_LEND_CHECK)
    :: dock[me] == CLAIMED -> atomic { sleeping-- }; goto awake
#endif
    :: else
    fi;
#endif
    blocked[me] = true;
    unlock(mutex[me]);       /* the condvar wait releases the mutex... */
    !blocked[me];            /* ...until a waker clears the flag */
    lock(mutex[me]);
awake:
    rounds = 0;
    atomic { if :: latch[me] == SLEEPING -> latch[me] = UNSET :: else fi };
    unlock(mutex[me]);
    goto search

finish:
    atomic { inactive-- };
    assert(sleeping <= W && inactive <= W)
}

#ifdef LEND
/* A layer above claims worker 1 once it is idle, wakes it if anyone
 * sleeps (ClaimFence, then the counters), and waits for its lend. */
proctype lender() {
    byte c_sleeping;
    bool woke;
    atomic { dock[1] == IDLE -> dock[1] = CLAIMED };
    atomic { c_sleeping = sleeping };
    if
    :: c_sleeping > 0 -> wake_specific(1, woke)
    :: else
    fi;
    lent_done
}
#endif

proctype outside() {
    byte n, i, old, k, c_sleeping, c_inactive, wanted;
    bool woke, was_empty;
    n = 0;
    do
    :: n < INJECT ->
        atomic { was_empty = (injector == 0); injector++ };
        new_jobs(was_empty);
        n++
    :: else -> break
    od;
#ifdef BROADCAST
    atomic { i = 0; do :: i < W -> bq[i]++; i++ :: else -> break od };
    /* PushFence, then the counters: bump the JEC, wake every sleeper */
    atomic {
        if
        :: jec % 2 == 0 -> jec = (jec + 1) % JEC_MOD
        :: else
        fi;
        c_sleeping = sleeping
    };
    if
    :: c_sleeping > 0 ->
        k = 0;
        do
        :: k < W -> wake_specific(k, woke); k++
        :: else -> break
        od
    :: else
    fi;
    bdone == W;              /* a blocking broadcast: every part has run */
#endif
    done == INJECT + 1;      /* every job has run */
#ifdef LEND
    lent_done;               /* the lender's work keeps the pool running */
#endif
#ifdef SPLIT
    p_done;
#endif
    i = 0;
    do
    :: i < W -> latch_set(i); i++
    :: else -> break
    od
}

init {
    byte i;
    atomic {
        inactive = W - 1; /* spool__sleep_init: every worker idle; worker 0 found work */
        i = 0;
        do
        :: i < W -> dock[i] = IDLE; run worker(i); i++
        :: else -> break
        od;
#ifdef LEND
        run lender();
#endif
        run outside()
    }
}
