/* FIFOs with an indirect job (see job_fifo.h). */
#include "job_fifo.h"

#include <stddef.h>
#include <stdlib.h>

#include "atomics.h"

#if defined(__GNUC__)
#define TAKE_INLINE inline __attribute__((always_inline))
#else
#define TAKE_INLINE inline
#endif

/* The job that indirect job `job` stands for, taken from its FIFO.  Inlined
 * in both callers: the call cost ~3% of a spawn_fifo (callgrind). */
static TAKE_INLINE spool__job_t *take_real(spool__job_t *job)
{
    spool__job_fifo_t *f =
        (spool__job_fifo_t *)(void *)((char *)job - offsetof(spool__job_fifo_t, indirect));
    /* Our reference guarantees a job for us: every earlier take was paid for
     * by another reference, and the push of the job we are owed happened
     * before the push of a reference whose taker we synchronize with (its
     * CAS on top is in the release sequence our load of top reads), so the
     * queue cannot look empty; a lost race only means retry. */
    spool__job_t *real = NULL;
    spool__steal_t r;
    while ((r = spool__deque_take_front(&f->queue, &real)) == SPOOL__STEAL_RETRY)
        ;
    if (SPOOL__UNLIKELY(r != SPOOL__STEAL_SUCCESS))
        spool__abort("internal error: indirect job found its FIFO empty");
    return real;
}

static void indirect_execute(spool__job_t *job)
{
    spool__job_execute(take_real(job));
}

spool__job_t *spool__job_fifo_resolve(spool__job_t *job)
{
    return job->execute == indirect_execute ? take_real(job) : job;
}

int spool__job_fifo_init(spool__job_fifo_t *f)
{
    f->indirect.execute = indirect_execute;
    return spool__deque_init(&f->queue);
}

void spool__job_fifo_destroy(spool__job_fifo_t *f)
{
    spool__deque_destroy(&f->queue);
}

spool__job_fifo_t *spool__job_fifo_new(void)
{
    /* aligned_alloc wants a multiple of the alignment. */
    size_t line = SPOOL__CACHE_LINE;
    size_t size = (sizeof(spool__job_fifo_t) + line - 1) / line * line;
    spool__job_fifo_t *f = aligned_alloc(SPOOL__CACHE_LINE, size);
    if (f == NULL)
        return NULL;
    if (spool__job_fifo_init(f) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

void spool__job_fifo_delete(spool__job_fifo_t *f)
{
    spool__job_fifo_destroy(f);
    free(f);
}
