/*
 * Internal: every tuning constant of the scheduler, in one place (tuning.c).
 *
 * None of them affects safety or liveness.  Each only says when a worker
 * shares, asks, spins, sleeps, splits or batches sooner or later; every
 * protocol (wait.md, sleep.md, deque.md, fifo.md) holds for any value, zero
 * and huge included, and a wait that a value makes longer is still bounded.
 * A build with SPOOL_RANDOM_TUNING (CMake) draws each at random once per
 * process (zero, tiny, huge or its default; SPOOL_TUNING_SEED=N repeats a
 * draw, which it prints), so that the stress tests meet schedules that the
 * defaults never give.
 *
 * Times are given in nanoseconds and converted once, at the first pool's
 * creation, into spool__ticks (the TSC's rate, measured then; nanoseconds
 * where there is no TSC).  Until then they are read as ticks.
 */
#ifndef SPOOL_TUNING_H
#define SPOOL_TUNING_H

#include <stdint.h>

/* The most calls a published FIFO ticket's holder claims at once: an
 * array's size (tuning.fifo_batch_max is at most this). */
#define SPOOL__FIFO_BATCH_LIMIT 16u

typedef struct spool__tuning {
    /* ---- times, in spool__ticks once converted (defaults in ns: tuning.c) */
    /* A stolen block or ticket finished this soon after its steal marks its
     * victim as a spawner the thief keeps up with (demand.h). */
    uint64_t demand_quick;
    /* The longest a thief waits for a marked victim to publish before it
     * demands (demand.h). */
    uint64_t demand_wait;
    /* How recent a mark must be to make the thief wait at all. */
    uint64_t demand_recent;
    /* An entry (spawn-block entry, FIFO call) this long or longer is
     * coarse: its holder publishes its other private jobs first (pace.h). */
    uint64_t pace_coarse;
    /* A loop leaf whose rest takes this long runs in pieces, each about
     * this long: a shorter rest would not repay a split (loop.c). */
    uint64_t leaf_long;
    /* Once a loop's pace is known, a part that would take less than this
     * is not split (loop.c). */
    uint64_t split_min;
    /* A loop that took less than this here last time runs whole (the loop
     * memo, loop.c): its halves would take about as long as a fork, a
     * steal and a join across cores. */
    uint64_t loop_short;
    /* A published ticket's holder claims as many calls at once as run in
     * about this long (job_fifo.c), in ns (compared with spool__now_ns). */
    uint64_t fifo_batch_ns;
    /* A worker whose work has been arriving within this long of its going
     * idle keeps looking (yielding) for up to twice that gap, at most this
     * long, before it gets sleepy; work that comes later makes it sleep
     * sooner again (sleep.md, "Keeping ready").  It bounds the CPU an idle
     * stretch burns: an idle pool sleeps within this long. */
    uint64_t keep_max;
    /* ---- counts */
    /* A stolen block or ticket of fewer calls than this may mark its victim
     * (demand.h). */
    unsigned demand_few;
    /* The pace samples the clock at most this many entries apart while the
     * entries are fine (pace.h). */
    unsigned pace_every_max;
    /* The most calls a ticket's holder claims at once (at most
     * SPOOL__FIFO_BATCH_LIMIT, at least 1). */
    unsigned fifo_batch_max;
    /* A searching worker's fruitless rounds: the first spin_rounds spin
     * (1, 2, 4, ... pauses), the rest up to rounds_until_sleepy yield the
     * CPU, then it gets sleepy and sleeps (sleep.md). */
    unsigned spin_rounds;
    unsigned rounds_until_sleepy;
    /* In a pool of more threads than CPUs, rounds_until_sleepy is at most
     * this and nobody spins: a searcher would take the CPU from a worker
     * that has work (sleep.c). */
    unsigned oversubscribed_rounds;
    /* An outside waiter of a lock latch: pauses, then rounds of
     * sched_yield, before it blocks (latch.c). */
    unsigned lock_latch_spins;
    unsigned lock_latch_yields;
    /* A loop that once read long when run whole is run whole again to
     * look after 1, 2, 4, ... split runs, at most this many apart (loop.c):
     * a preempted run does not keep a short loop split for good. */
    unsigned loop_probe_max;
    /* A search over a range (spool_find_*) starts with this many pieces
     * per thread, each round's pieces twice the last's (find.c). */
    unsigned find_grow;
} spool__tuning_t;

/* The values in force: written once, by spool__tuning_init, before the
 * first pool's threads start; read-only after. */
extern spool__tuning_t spool__tuning;

/* Converts the times into ticks and, in a SPOOL_RANDOM_TUNING build,
 * draws the values.  Idempotent; called by pool creation. */
void spool__tuning_init(void);

#endif
