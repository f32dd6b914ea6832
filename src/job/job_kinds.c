/* The table of job kinds (job.h, job.md): every kind the library makes. */
#include "job/job.h"

#include "platform/atomics.h"

static const spool__job_kind_t *const kinds[] = {
    &spool__kind_join,           &spool__kind_local_block,    &spool__kind_counted_block,
    &spool__kind_scope_spawn,    &spool__kind_private_ticket, &spool__kind_local_ticket,
    &spool__kind_ticket,         &spool__kind_task,           &spool__kind_spawn,
    &spool__kind_install,        &spool__kind_broadcast,      &spool__kind_caller_service,
    &spool__kind_lend,           &spool__kind_frame,          &spool__kind_join_v3,
};

const spool__job_kind_t *spool__job_kind(const spool__job_t *job)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i]->execute == job->execute)
            return kinds[i];
    spool__abort("internal error: a job of no known kind");
}
