/* Jobs that hold several calls behind one deque entry (a scope's spawn
 * blocks, FIFO tickets): what publishing one means (job.h). */
#include "job.h"

#include "job_fifo.h"
#include "scope.h"

size_t spool__job_published(spool__job_t *job)
{
    if (job->execute == spool__scope_local_execute || job->execute == spool__scope_counted_execute)
        return spool__scope_block_published(job);
    if (spool__job_is_fifo_ticket(job))
        return spool__fifo_ticket_published(job);
    return 1;
}
