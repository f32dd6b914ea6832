/*
 * A model of the wait layer's joint invariant (src/scheduler/wait.md), for spin.
 *
 * Two workers (W0, W1) and the caller slot's thread (C, index 2) go through
 * five phases; in each, threads wait (src/scheduler/wait.c's loop: take with a
 * filter, run, else a final check and sleep) for latches that are set only
 * after jobs they do not hold have run.  The invariant W says that such a
 * job is always running or takeable by a thread that is awake or will be
 * woken and whose filter accepts it: if W fails, some thread sleeps for
 * good, which spin reports as an invalid end state.  A thread that runs a
 * job its region's filter must refuse fails an assertion (isolation).
 *
 *   1. Labels, X5, the isolated wake-up, the latch: W1 holds H, the rest of
 *      a spawn block of region 1 handed on in a context it has left (its
 *      position says region 0, its label 1), private, below its base.  W1
 *      waits in region 2 for W0; W0 waits in region 1 for H.  W1 refuses
 *      H, publishes it before it backs off (X5), which wakes isolated
 *      sleepers; W0 steals it by its tag, then sets W1's latch.
 *   2. The cover: W0 in region 1, after a wait took jobs below its base,
 *      pushes a join's b (F) and waits for it; W1 waits in region 1 for
 *      W0.  With the cover F's position says region 1 (either may take it);
 *      without, region 0 (neither may).
 *   3. The post-work wake-up, a cancelled scope, isolation: W0 pushes D, a
 *      job of a cancelled scope (region 0), public at once, then waits in
 *      region 2 for D's count; W1 waits plainly (it may sleep first) and
 *      must be woken to drop D, which counts as run.
 *   4. A broadcast and the caller slot: C holds the slot and leaves; W1
 *      broadcasts from region 2 to indices 0, 1 and 2 and waits for the
 *      runs; W0 waits in region 1 for W1.  W0 runs its part (an exception
 *      to its filter); index 2's part is run by C if it is still there, or
 *      after C released the slot by C's look after its ReleaseFence, or by
 *      a worker serving the free slot.
 *   5. A task waited for: W1 makes task T ready in region 2 (public on its
 *      deque), then waits in region 3 for W0; W0, once T is ready, waits in
 *      region 1 for T: it claims T and runs it (the third exception).
 *
 * Sleeping is modelled at the level of who wakes whom: a sleeper's final
 * check and its block are one atomic step, standing for the fence pairs
 * that model/sleep.pml and model/isolate.pml check.
 *
 * Deliberate bugs, one per row of wait.md's table; spin must find each:
 *   -DPOSITION_LABELS        heap jobs judged by deque position, not label
 *   -DNO_COVER               no cover: F is looked up in an older entry
 *   -DTAKES_ANY              a region's filter accepts any job
 *   -DISO_REFUSES_BROADCAST  a region's filter refuses other regions' broadcasts
 *   -DNO_X5                  an isolated waiter backs off with private jobs
 *   -DNO_POST_WAKE           publication wakes no sleeping plain worker
 *   -DNO_ISO_WAKE            a region's publication wakes no isolated sleeper
 *   -DLATCH_NO_WAKE          setting a latch wakes no sleeping owner
 *   -DNO_SLOT_SERVICE        workers do not serve the free slot's broadcasts
 *   -DNO_RELEASE_LOOK        the slot's releaser does not look again
 *   -DDROP_NO_COUNT          a dropped job does not count down its latch
 *   -DNO_CLAIM               a task's waiter does not claim it ready
 */

#define NW 3            /* W0, W1, and C at index 2 */
#define NJ 6            /* jobs: 1 H, 2 F, 3 D, 4 T */
#define NL 12           /* latches */

/* Jobs: where they lie (one job per deque at most), and what they are. */
byte dj[NW];            /* the job on each deque, 0: none */
bool dpub[NW];          /* it is public */
bool dabove[NW];        /* it lies above its owner's top entry's base */
byte jreal[NJ];         /* its region: its label, or its pushing code's */
bool jlab[NJ];          /* it carries a label (a heap job) */
byte jpos[NJ];          /* what its deque position's lookup says */
bool jcan[NJ];          /* a job of a cancelled scope: dropped */
byte jlat[NJ];          /* the latch it counts down when it ran */
bool jclaimed[NJ];      /* a task claimed by its waiter */
bool t_ready;           /* phase 5: T was made ready */

byte lc[NL];            /* latch counts; set at 0 */
byte lown[NL];          /* whom a latch wakes */
byte bq[NW];            /* broadcast parts queued for each index */
byte blat;              /* the latch the broadcast's runs count down */
byte breg;              /* the broadcaster's region */
bool slot_taken;        /* the caller slot is held */

bool asleep[NW];        /* blocked until woken */
bool isol[NW];          /* asleep as an isolated sleeper */

byte phase = 1;
byte arrived;

inline latch_down(l) {
    atomic {
        lc[l]--;
#ifndef LATCH_NO_WAKE
        if
        :: lc[l] == 0 && asleep[lown[l]] -> asleep[lown[l]] = false
        :: else
        fi
#endif
    }
}

/* The region a job's test sees: a thief reads its tag (its label, or 0
 * for a join frame, then the position's lookup); an owner its label. */
inline region_seen(j, r) {
#ifdef POSITION_LABELS
    r = jpos[j]
#else
    if
    :: jlab[j] -> r = jreal[j]
    :: else -> r = jpos[j]
    fi
#endif
}

/* The post-work protocol of a publication: wake one plain sleeper, and
 * every isolated sleeper if the job has a region. */
inline publish(me) {
    atomic {
        dpub[me] = true;
        k = 0;
        woke = false;
#ifndef NO_POST_WAKE
        do
        :: k < 2 && !woke && asleep[k] && !isol[k] -> asleep[k] = false; woke = true
        :: k < 2 && !(!woke && asleep[k] && !isol[k]) -> k++
        :: k >= 2 || woke -> break
        od;
#endif
        region_seen(dj[me], r);
#ifndef NO_ISO_WAKE
        if
        :: r != 0 -> k = 0;
            do
            :: k < 2 -> if :: asleep[k] && isol[k] -> asleep[k] = false :: else fi; k++
            :: else -> break
            od
        :: else
        fi
#endif
    }
}

/* What the take of worker me with filter f would find (the table of
 * wait.md), without taking: what = 1 own job, 2 its broadcast part, 3 the
 * slot's service, 4 a steal from victim v; 0 nothing. */
inline can_take(me, f) {
    what = 0;
    if
    :: dj[me] != 0 ->
        region_seen(dj[me], r);
#ifdef TAKES_ANY
        what = 1
#else
        if
        :: dabove[me] || f == 0 || r == f -> what = 1
        :: else
        fi
#endif
    :: else
    fi;
    if
    :: what == 0 && bq[me] > 0 ->
#ifdef ISO_REFUSES_BROADCAST
        if :: f == 0 || breg == f -> what = 2 :: else fi
#else
        what = 2
#endif
    :: else
    fi;
#ifndef NO_SLOT_SERVICE
    if
    :: what == 0 && me < 2 && bq[2] > 0 && !slot_taken -> what = 3
    :: else
    fi;
#endif
    v = 0;
    do
    :: what == 0 && v < 2 ->
        if
        :: v != me && dj[v] != 0 && dpub[v] ->
            region_seen(dj[v], r);
#ifdef TAKES_ANY
            what = 4
#else
            if :: f == 0 || r == f -> what = 4 :: else -> v++ fi
#endif
        :: else -> v++
        fi
    :: else -> break
    od
}

/* Runs job j by a thread of filter f: never a job of another region
 * unless its own code made it (above its base). */
inline run_job(j, f, above) {
    assert(f == 0 || jreal[j] == f || above);
    if
    :: jcan[j] ->
#ifndef DROP_NO_COUNT
        latch_down(jlat[j])
#else
        skip
#endif
    :: else -> latch_down(jlat[j])
    fi
}

/* Index idx's broadcast parts, run by a thread holding that index. */
inline run_parts(idx) {
    do
    :: atomic { bq[idx] > 0 -> bq[idx]-- }; latch_down(blat)
    :: atomic { bq[idx] == 0 -> break }
    od
}

/* The caller slot given back: ReleaseFence, one more look. */
inline slot_release() {
    do
    :: slot_taken = false;
#ifndef NO_RELEASE_LOOK
        if
        :: atomic { bq[2] > 0 && !slot_taken -> slot_taken = true }; run_parts(2)
        :: else -> break
        fi
#else
        break
#endif
    od
}

/* wait.c's loop: worker me, filter f, until latch l is set. */
inline wait_until(me, l, f) {
    do
    :: lc[l] == 0 -> break
    :: else ->
        atomic {
            can_take(me, f);
            if
            :: what == 1 -> j = dj[me]; above = dabove[me]; dj[me] = 0; dpub[me] = false
            :: what == 4 -> j = dj[v]; above = false; dj[v] = 0; dpub[v] = false
            :: else
            fi
        };
        if
        :: what == 1 || what == 4 -> run_job(j, f, above)
        :: what == 2 -> run_parts(me)
        :: what == 3 ->
            if
            :: atomic { !slot_taken -> slot_taken = true }; run_parts(2); slot_release()
            :: else
            fi
        :: what == 0 ->
#ifndef NO_X5
            if
            :: f != 0 && dj[me] != 0 && !dpub[me] -> publish(me)
            :: else
            fi;
#endif
            /* The final check and the block, one step (the fences). */
            atomic {
                can_take(me, f);
                if
                :: lc[l] == 0 || what != 0 -> skip
                :: else -> asleep[me] = true; isol[me] = f != 0
                fi
            };
            !asleep[me]
        fi
    od
}

inline next_phase() {
    atomic { arrived++; if :: arrived == NW -> arrived = 0; phase++ :: else fi }
}

proctype w0() {
    byte what, v, r, k, j;
    bool above, woke;
    /* 1 */
    wait_until(0, 0, 1);
    latch_down(1);
    next_phase();
    /* 2 */
    phase == 2;
    atomic { dj[0] = 2; dpub[0] = false; dabove[0] = false };
    wait_until(0, 2, 1);
    latch_down(3);
    next_phase();
    /* 3 */
    phase == 3;
    atomic { dj[0] = 3; dabove[0] = false };
    publish(0);                 /* the only job: public at once (rule 1) */
    wait_until(0, 4, 2);
    latch_down(6);
    next_phase();
    /* 4 */
    phase == 4;
    wait_until(0, 7, 1);
    next_phase();
    /* 5: the wait begins once T is ready (task.c claims at its start) */
    phase == 5;
    t_ready;
#ifndef NO_CLAIM
    if
    :: atomic { dj[1] == 4 && !jclaimed[4] -> jclaimed[4] = true; dj[1] = 0; dpub[1] = false };
        run_job(4, 0, true)     /* claimed: the exception */
    :: else
    fi;
#endif
    wait_until(0, 9, 1);
    latch_down(8);
    next_phase()
}

proctype w1() {
    byte what, v, r, k, j;
    bool above, woke;
    /* 1 */
    wait_until(1, 1, 2);
    next_phase();
    /* 2 */
    phase == 2;
    wait_until(1, 3, 1);
    next_phase();
    /* 3 */
    phase == 3;
    wait_until(1, 6, 0);
    next_phase();
    /* 4 */
    phase == 4;
    atomic {
        bq[0]++; bq[1]++; bq[2]++;
        /* every sleeper woken */
        asleep[0] = false; asleep[1] = false
    };
    wait_until(1, 5, 2);
    latch_down(7);
    next_phase();
    /* 5 */
    phase == 5;
    atomic { dj[1] = 4; dpub[1] = true; dabove[1] = false; t_ready = true };
    wait_until(1, 8, 3);
    next_phase()
}

proctype caller() {
    byte what, v, r, k, j;
    bool above, woke;
    next_phase();
    phase == 2; next_phase();
    phase == 3; next_phase();
    /* 4: C holds the slot while the broadcast may come, then leaves */
    phase == 4;
    atomic { !slot_taken -> slot_taken = true };
    run_parts(2);
    slot_release();
    next_phase();
    phase == 5; next_phase()
}

init {
    atomic {
        /* 1: H on W1's deque, private, below its base; region 1 by label,
         * 0 by position; W0's latch 0 counts H, W1's latch 1 counts W0. */
        dj[1] = 1; dpub[1] = false; dabove[1] = false;
        jreal[1] = 1; jlab[1] = true; jpos[1] = 0; jlat[1] = 0;
        lc[0] = 1; lown[0] = 0;
        lc[1] = 1; lown[1] = 1;
        /* 2: F, W0's join frame of region 1; latch 2 counts it (W0's),
         * latch 3 counts W0 (W1's). */
        jreal[2] = 1; jlab[2] = false;
#ifdef NO_COVER
        jpos[2] = 0;
#else
        jpos[2] = 1;
#endif
        jlat[2] = 2; lc[2] = 1; lown[2] = 0;
        lc[3] = 1; lown[3] = 1;
        /* 3: D, of a cancelled scope, region 0; latch 4 counts it (W0's),
         * latch 6 counts W0 (W1's). */
        jreal[3] = 0; jlab[3] = true; jpos[3] = 0; jcan[3] = true; jlat[3] = 4;
        lc[4] = 1; lown[4] = 0;
        lc[6] = 1; lown[6] = 1;
        /* 4: the broadcast's latch 5 (W1's) counts its three runs; latch 7
         * counts W1 (W0's). */
        blat = 5; breg = 2; lc[5] = 3; lown[5] = 1;
        lc[7] = 1; lown[7] = 0;
        /* 5: T, made ready in region 2; latch 9 counts it (W0's wait),
         * latch 8 counts W0 (W1's). */
        jreal[4] = 2; jlab[4] = true; jpos[4] = 2; jlat[4] = 9;
        lc[9] = 1; lown[9] = 0;
        lc[8] = 1; lown[8] = 1;
        run w0(); run w1(); run caller()
    }
}
