/* The tuning constants (tuning.h): their defaults, the conversion of times
 * into ticks, and the random draw of a SPOOL_RANDOM_TUNING build. */
#include "platform/tuning.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "platform/atomics.h"
#include "platform/clock.h"

/* The defaults (each field's reason is in tuning.h).  The times were tuned
 * as ticks of 2.1-2.6 GHz TSCs; these are those values in ns. */
#define TUNING_DEFAULTS                                                                           \
    {                                                                                             \
        .demand_quick = 1200, .demand_wait = 2000, .demand_recent = 10000, .pace_coarse = 24000,  \
        .leaf_long = 24000, .split_min = 10000, .loop_short = 2400, .fifo_batch_ns = 2000,        \
        .keep_max = 500000,                                                                       \
        .demand_few = 32, .pace_every_max = 32, .fifo_batch_max = SPOOL__FIFO_BATCH_LIMIT,        \
        .spin_rounds = 7, .rounds_until_sleepy = 32, .oversubscribed_rounds = 2,                  \
        .lock_latch_spins = 127, .lock_latch_yields = 16, .loop_probe_max = 256, .find_grow = 4   \
    }

spool__tuning_t spool__tuning = TUNING_DEFAULTS;

/* spool__ticks per microsecond, measured over about 200 us of both
 * clocks; 1000 where the ticks are nanoseconds. */
static uint64_t ticks_per_us(void)
{
#ifdef SPOOL__HAVE_TSC
    uint64_t n0 = spool__now_ns(), t0 = spool__ticks(), n1, t1;
    do {
        n1 = spool__now_ns();
        t1 = spool__ticks();
    } while (n1 - n0 < 200000);
    uint64_t r = (t1 - t0) * 1000 / (n1 - n0);
    return r != 0 ? r : 1;
#else
    return 1000;
#endif
}

#ifdef SPOOL_RANDOM_TUNING
/* A value of four kinds: zero (or at least lo), tiny, huge (a hundred
 * times the default, at most hi), or the default. */
static uint64_t draw(uint64_t *state, uint64_t def, uint64_t lo, uint64_t hi)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    uint64_t v;
    switch ((*state >> 33) % 4) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = def * 100; break;
    default: v = def; break;
    }
    return v < lo ? lo : v > hi ? hi : v;
}

static void draw_all(spool__tuning_t *t)
{
    const char *env = getenv("SPOOL_TUNING_SEED");
    uint64_t seed = env != NULL && env[0] != '\0'
                        ? strtoull(env, NULL, 10)
                        : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid() * 7919u;
    uint64_t s = seed;
    const uint64_t big = UINT64_C(1) << 40;
    t->demand_quick = draw(&s, t->demand_quick, 0, big);
    t->demand_wait = draw(&s, t->demand_wait, 0, big);
    t->demand_recent = draw(&s, t->demand_recent, 0, big);
    t->pace_coarse = draw(&s, t->pace_coarse, 0, big);
    t->leaf_long = draw(&s, t->leaf_long, 0, big);
    t->split_min = draw(&s, t->split_min, 0, big);
    t->loop_short = draw(&s, t->loop_short, 0, big);
    t->fifo_batch_ns = draw(&s, t->fifo_batch_ns, 0, big);
    /* Bounded: the tests wait for an idle pool to sleep, with a deadline. */
    t->keep_max = draw(&s, t->keep_max, 0, UINT64_C(1000000000));
    t->demand_few = (unsigned)draw(&s, t->demand_few, 0, 1u << 20);
    t->pace_every_max = (unsigned)draw(&s, t->pace_every_max, 1, 1u << 20);
    t->fifo_batch_max = (unsigned)draw(&s, t->fifo_batch_max, 1, SPOOL__FIFO_BATCH_LIMIT);
    /* Spinning doubles its pauses each round: at most 2^12 pauses a round. */
    t->spin_rounds = (unsigned)draw(&s, t->spin_rounds, 0, 12);
    t->rounds_until_sleepy = (unsigned)draw(&s, t->rounds_until_sleepy, t->spin_rounds, 4096);
    t->oversubscribed_rounds = (unsigned)draw(&s, t->oversubscribed_rounds, 0, 4096);
    t->lock_latch_spins = (unsigned)draw(&s, t->lock_latch_spins, 0, 1u << 16);
    t->lock_latch_yields = (unsigned)draw(&s, t->lock_latch_yields, 0, 4096);
    t->loop_probe_max = (unsigned)draw(&s, t->loop_probe_max, 1, 1u << 20);
    t->find_grow = (unsigned)draw(&s, t->find_grow, 1, 1024);
    fprintf(stderr,
            "spool: random tuning (SPOOL_TUNING_SEED=%llu): demand %llu/%llu/%llu/%u, pace "
            "%llu/%u, loop %llu/%llu/%llu/%u, fifo batch %llu ns/%u, rounds %u/%u/%u, keep %llu, "
            "lock latch %u/%u, find %u\n",
            (unsigned long long)seed, (unsigned long long)t->demand_quick,
            (unsigned long long)t->demand_wait, (unsigned long long)t->demand_recent,
            t->demand_few, (unsigned long long)t->pace_coarse, t->pace_every_max,
            (unsigned long long)t->leaf_long, (unsigned long long)t->split_min,
            (unsigned long long)t->loop_short, t->loop_probe_max, (unsigned long long)t->fifo_batch_ns,
            t->fifo_batch_max, t->spin_rounds, t->rounds_until_sleepy, t->oversubscribed_rounds,
            (unsigned long long)t->keep_max, t->lock_latch_spins, t->lock_latch_yields, t->find_grow);
}
#endif

static void init_once(void)
{
    spool__tuning_t t = spool__tuning;
#ifdef SPOOL_RANDOM_TUNING
    draw_all(&t);
#endif
    /* ns to ticks, once. */
    uint64_t per_us = ticks_per_us();
    uint64_t *times[] = {&t.demand_quick, &t.demand_wait, &t.demand_recent, &t.pace_coarse,
                         &t.leaf_long,    &t.split_min,   &t.loop_short,   &t.keep_max};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        *times[i] = *times[i] > UINT64_MAX / per_us ? UINT64_MAX : *times[i] * per_us / 1000;
    spool__tuning = t;
}

void spool__tuning_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}
