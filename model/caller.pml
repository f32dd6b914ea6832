/*
 * A model of the caller slot's hand-over (src/pool/caller.md), for spin.
 *
 * Two outside callers C0 and C1 each run a root in the global pool.  A
 * caller that takes the slot (a CAS of taken from 0 to 1) is its worker:
 * its root joins (pushes the second half J, privately), and the first half
 * spawns a detached job D (pushed above J; nobody waits for it); the
 * join's sync pops jobs until it gets J back (running D on the way, as
 * join_finish does) or finds the deque empty, then waits for J's latch;
 * after the join the root spawns another detached job E and returns.  The
 * caller publishes its private jobs at any moment (a thief's demand, rule
 * 3), or never.  Then it leaves: runs what is left on its deque, and
 * releases the slot (taken = 0).  A caller that finds the slot taken hands
 * its root to a worker (not modelled: it touches nothing of the slot).  A
 * thief T steals public jobs of the slot's deque at any moment, also while
 * the slot changes hands, runs them and sets J's latch.
 *
 * Checked: one holder at a time; the deque is empty and private-free when
 * the slot changes hands; every J and D runs exactly once; a caller
 * returns only after its J has run; nothing is left when all is done
 * (spin's end state: every process at its end).
 *
 * Memory model: spin's steps are sequentially consistent; the slot's
 * release and acquire (caller.c) give the hand-over that order for the
 * deque's owner fields, which the deque's own protocol (deque.md) covers
 * for the thief.
 *
 * Deliberate bugs, for showing that the model can fail:
 *   -DCLAIM_NOT_ATOMIC   the claim reads taken, then writes it (no CAS)
 *   -DNO_DRAIN           leaving does not run what is left on the deque
 *   -DLEAVE_EARLY        the caller leaves without waiting for J's latch
 */

#define NCALLERS 2
#define SLOTS 4 /* three pushes; one spare */
/* The slot's deque: jobs J (a caller's join half), D and E (detached
 * spawns), tagged with their caller. */
#define EMPTY 0
#define JOB_J 1
#define JOB_D 2
#define JOB_E 3

byte taken;                 /* the slot: 0 free, 1 held */
byte holders;               /* callers inside the slot (must stay <= 1) */
byte slot_kind[SLOTS];      /* the deque's jobs, index 0 oldest */
byte slot_owner[SLOTS];
byte bottom;                /* next free index */
byte top;                   /* oldest job not yet taken */
byte split;                 /* [top, split) is public */
byte j_runs[NCALLERS];      /* times each caller's J ran */
byte d_runs[NCALLERS];
byte e_runs[NCALLERS];
bool j_latch[NCALLERS];     /* J's latch set */
bool held[NCALLERS];        /* the caller took the slot */
byte done_callers;

inline run_job(kind, who) {
    if
    :: kind == JOB_J -> j_runs[who]++; j_latch[who] = true
    :: kind == JOB_D -> d_runs[who]++
    :: kind == JOB_E -> e_runs[who]++
    fi
}

inline push(kind, me) {
    atomic { slot_kind[bottom] = kind; slot_owner[bottom] = me; bottom++ }
}

/* Publication, at any moment or never. */
inline maybe_publish() {
    if
    :: split = bottom
    :: skip
    fi
}

/* The holder pops its newest job (the deque's owner path): it gets it
 * unless the thief took it first (spin's atomic step settles the race as
 * the deque's CAS on top does). */
inline pop_newest(got, kind, who) {
    atomic {
        if
        :: bottom > top ->
            bottom--;
            kind = slot_kind[bottom];
            who = slot_owner[bottom];
            slot_kind[bottom] = EMPTY;
            if
            :: split > bottom -> split = bottom
            :: else -> skip
            fi;
            got = true
        :: else -> got = false
        fi
    }
}

proctype caller(byte me) {
    bool got;
    byte kind, who;
    /* Claim the slot. */
#ifdef CLAIM_NOT_ATOMIC
    if
    :: taken == 0 -> taken = 1
    :: else -> goto handoff
    fi;
#else
    atomic {
        if
        :: taken == 0 -> taken = 1
        :: else -> goto handoff
        fi
    }
#endif
    holders++;
    held[me] = true;
    assert(holders == 1);
    assert(bottom == top); /* nothing left by the last holder */
    /* The deque's indices run on from the last holder's (as top = bottom
     * says); restart them here to keep the model small. */
    atomic { bottom = 0; top = 0; split = 0 }
    push(JOB_J, me);
    maybe_publish();
    push(JOB_D, me); /* the first half's detached spawn */
    maybe_publish();
    /* The join's sync. */
    do
    :: pop_newest(got, kind, who);
       if
       :: got && kind == JOB_J -> run_job(kind, who); break
       :: got && kind != JOB_J -> run_job(kind, who) /* left by the first half */
       :: !got ->
#ifndef LEAVE_EARLY
           j_latch[me];
#endif
           break
       fi
    od;
    push(JOB_E, me); /* the root's detached spawn after the join */
    maybe_publish();
    /* Leave: run what is left, then release the slot. */
#ifndef NO_DRAIN
    do
    :: pop_newest(got, kind, who);
       if
       :: got -> run_job(kind, who)
       :: else -> break
       fi
    od;
#endif
    holders--;
    taken = 0;
handoff:
    /* The call returns: its J has run, whoever ran it. */
    assert(!held[me] || j_runs[me] == 1);
    done_callers++
}

/* Steals public jobs of the slot's deque, whoever holds it, until every
 * caller is done and nothing is public. */
proctype thief() {
    byte kind, who;
    do
    :: atomic {
           top < split && top < bottom ->
           kind = slot_kind[top];
           who = slot_owner[top];
           slot_kind[top] = EMPTY;
           top++
       };
       run_job(kind, who)
    :: atomic { done_callers == NCALLERS && !(top < split && top < bottom) } -> break
    od
}

init {
    atomic {
        run caller(0);
        run caller(1);
        run thief()
    }
    (_nr_pr == 1);
    byte i;
    for (i : 0 .. NCALLERS - 1) {
        /* A caller that took the slot had each of its jobs run exactly
         * once; one that handed off pushed nothing. */
        if
        :: held[i] -> assert(j_runs[i] == 1 && d_runs[i] == 1 && e_runs[i] == 1)
        :: else -> assert(j_runs[i] + d_runs[i] + e_runs[i] == 0)
        fi
    }
    assert(held[0] || held[1]); /* the slot was free for someone */
    assert(bottom == top && taken == 0 && holders == 0)
}
