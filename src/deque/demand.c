/* A thief's demand, delayed while its victim makes jobs about as fast as
 * the thief runs them (demand.h; deque.md, "The demand, delayed"). */
#include "deque/demand.h"

#include "platform/test_hooks.h"

void spool__demand_stolen_done(spool__demand_t *m, size_t calls)
{
    uint64_t now = spool__ticks();
    if (spool__test_demand_always() ||
        (calls < spool__tuning.demand_few && now - m->steal_tick < spool__tuning.demand_quick))
        m->mark_tick = now;
}

void spool__demand_wait(spool__demand_t *m, spool__deque_t *d)
{
    uint64_t start = spool__ticks();
    bool recent = start - m->mark_tick < spool__tuning.demand_recent ||
                  spool__test_demand_always();
    m->mark_tick = 0; /* one wait per mark */
    if (!recent)
        return;
    spool__test_demand_waited();
    /* Relaxed loads: a hint only.  The steal after the wait reads top and
     * split with the protocol's orders, and demands if it finds nothing. */
    while (atomic_load_explicit(&d->top, memory_order_relaxed) >=
               atomic_load_explicit(&d->split, memory_order_relaxed) &&
           spool__ticks() - start < spool__tuning.demand_wait)
        for (int i = 0; i < 8; i++)
            spool__cpu_relax();
}
