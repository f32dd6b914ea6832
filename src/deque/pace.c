/* The pace of a worker's entries (pace.h): the sample. */
#include "deque/pace.h"

bool spool__pace_sample(spool__pace_t *p)
{
    if (p->every == 0) { /* disabled */
        p->left = UINT32_MAX;
        return false;
    }
    uint64_t now = spool__ticks();
    /* every entries ran since the last sample (left counted them down). */
    bool coarse = now - p->tick >= spool__tuning.pace_coarse * p->every;
    if (coarse)
        p->every = 1;
    else if (p->every < spool__tuning.pace_every_max)
        p->every *= 2;
    p->tick = now;
    p->left = p->every;
    return coarse;
}
