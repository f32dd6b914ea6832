/* FIFOs with an indirect job (see job_fifo.h). */
#include "job_fifo.h"

#include <stddef.h>

#include "atomics.h"

static void indirect_execute(spool__job_t *job)
{
    spool__job_fifo_t *f =
        (spool__job_fifo_t *)(void *)((char *)job - offsetof(spool__job_fifo_t, indirect));
    spool__job_t *real = spool__injector_pop(&f->queue);
    if (SPOOL__UNLIKELY(real == NULL))
        spool__abort("internal error: indirect job found its FIFO empty");
    spool__job_execute(real);
}

int spool__job_fifo_init(spool__job_fifo_t *f)
{
    f->indirect.execute = indirect_execute;
    return spool__injector_init(&f->queue);
}

void spool__job_fifo_destroy(spool__job_fifo_t *f)
{
    spool__injector_destroy(&f->queue);
}
