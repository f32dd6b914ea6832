/* Internal: fault injection for the tests.  Never installed. */
#ifndef SPOOL_TEST_HOOKS_H
#define SPOOL_TEST_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The countdown behind the hooks that fail the nth call of a kind: armed
 * with nth, its nth hit from then fails; it also tallies its hits, so that
 * a test can count the sites it must fail in turn.  Zeroed: disarmed. */
typedef struct spool__test_countdown {
    atomic_int left, hits;
} spool__test_countdown_t;
/* Arms c to fail its nth hit from now (0 disarms); returns the hits since
 * the last arming. */
int spool__test_countdown_arm(spool__test_countdown_t *c, int nth);
/* Counts a hit on c: true if this one must fail. */
bool spool__test_countdown_hit(spool__test_countdown_t *c);

/* Makes the nth (1-based) worker-thread creation from now fail with err;
 * nth = 0 disarms. */
void spool__test_fail_thread_create(int nth, int err);
/* Called before each pthread_create: 0, or the error to pretend it gave. */
int spool__test_thread_create_error(void);

/* Makes every deque growth fail (as if out of memory) while armed. */
void spool__test_fail_deque_grow(int armed);
/* Called by spool__deque_grow: true if it must fail. */
int spool__test_deque_grow_fails(void);

/* Makes the nth (1-based) allocation of a task's or a completion queue's
 * memory from now fail (as if out of memory); nth = 0 disarms.  Returns how
 * many allocations were counted since the last call (to find every site). */
int spool__test_fail_alloc(int nth);
/* Called before each such allocation: true if it must fail. */
int spool__test_alloc_fails(void);

/* Makes every allocation of a spawn's memory fail while armed: a refill of
 * heap-job blocks (counted scope spawns and detached spawns), a spawn
 * block, a FIFO, an argument copy. */
void spool__test_fail_spawn_alloc(int armed);
/* Called before each such allocation: true if it must fail. */
int spool__test_spawn_alloc_fails(void);

/* Sets the bound under which loop.c's memo runs a loop whole (spool__ticks;
 * 0: its own), so that a test sees the memo at work in any build. */
void spool__test_set_loop_short_ticks(uint64_t ticks);
/* Called by loop.c: the bound set, else fallback. */
uint64_t spool__test_loop_short_ticks(uint64_t fallback);

/* Armed: every stolen spawn block or FIFO ticket a thief finishes marks
 * its victim (demand.h), whatever its size and time, and the mark stays
 * recent however slow the build (sanitizers, a recording timeline). */
void spool__test_set_demand_always(int armed);
/* Called by demand.c: whether armed. */
int spool__test_demand_always(void);
/* Called by demand.c at each wait; spool__test_demand_waits returns how
 * many there were since the last call. */
void spool__test_demand_waited(void);
unsigned long spool__test_demand_waits(void);

#endif
