/* Entry points libgomp.so.1 exports that libspool-omp does not implement
 * yet: each prints one line naming itself and aborts, so that a program
 * that needs one stops at once instead of running wrong. */
#include "gomp_abi.h"
#include "omp_impl.h"

#define MISSING(name) spool__omp_fatal("%s is not implemented yet", name)

SPOOL_OMP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                             long size, long align, bool if_clause, unsigned flags, void **depend,
                             int priority, void *detach)
{
    (void)fn, (void)data, (void)cpyfn, (void)size, (void)align, (void)if_clause, (void)flags,
        (void)depend, (void)priority, (void)detach;
    MISSING("GOMP_task (the task construct)");
}

SPOOL_OMP_API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                 long size, long align, unsigned flags, unsigned long num_tasks,
                                 int priority, long start, long end, long step)
{
    (void)fn, (void)data, (void)cpyfn, (void)size, (void)align, (void)flags, (void)num_tasks,
        (void)priority, (void)start, (void)end, (void)step;
    MISSING("GOMP_taskloop (the taskloop construct)");
}

SPOOL_OMP_API void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                                     void (*cpyfn)(void *, void *), long size, long align,
                                     unsigned flags, unsigned long num_tasks, int priority,
                                     spool__omp_ull start, spool__omp_ull end,
                                     spool__omp_ull step)
{
    (void)fn, (void)data, (void)cpyfn, (void)size, (void)align, (void)flags, (void)num_tasks,
        (void)priority, (void)start, (void)end, (void)step;
    MISSING("GOMP_taskloop_ull (the taskloop construct)");
}

SPOOL_OMP_API void GOMP_taskwait(void)
{
    /* No task is ever deferred here, so none is left to wait for. */
}

SPOOL_OMP_API void GOMP_taskwait_depend(void **depend)
{
    (void)depend;
}

SPOOL_OMP_API void GOMP_taskyield(void)
{
}

SPOOL_OMP_API void GOMP_taskgroup_start(void)
{
}

SPOOL_OMP_API void GOMP_taskgroup_end(void)
{
}

SPOOL_OMP_API void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    (void)data;
    MISSING("GOMP_taskgroup_reduction_register (task reductions)");
}

SPOOL_OMP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    (void)data;
    MISSING("GOMP_taskgroup_reduction_unregister (task reductions)");
}

SPOOL_OMP_API void GOMP_task_reduction_remap(size_t size, size_t cnt, void **ptrs)
{
    (void)size, (void)cnt, (void)ptrs;
    MISSING("GOMP_task_reduction_remap (in_reduction)");
}

SPOOL_OMP_API void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    (void)cancelled;
    MISSING("GOMP_workshare_task_reduction_unregister (task reductions)");
}

SPOOL_OMP_API int omp_in_final(void)
{
    return 0;
}

SPOOL_OMP_API void omp_fulfill_event(omp_event_handle_t event)
{
    (void)event;
    MISSING("omp_fulfill_event (detached tasks)");
}
