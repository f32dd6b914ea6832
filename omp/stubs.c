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

SPOOL_OMP_API void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                               void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)fn, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes,
        (void)kinds;
    MISSING("GOMP_target (the target construct)");
}

SPOOL_OMP_API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum,
                                   void **hostaddrs, size_t *sizes, unsigned short *kinds,
                                   unsigned int flags, void **depend, void **args)
{
    (void)device, (void)fn, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags,
        (void)depend, (void)args;
    MISSING("GOMP_target_ext (the target construct)");
}

SPOOL_OMP_API void GOMP_target_data(int device, const void *unused, size_t mapnum,
                                    void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    MISSING("GOMP_target_data (the target data construct)");
}

SPOOL_OMP_API void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    MISSING("GOMP_target_data_ext (the target data construct)");
}

SPOOL_OMP_API void GOMP_target_end_data(void)
{
    MISSING("GOMP_target_end_data (the target data construct)");
}

SPOOL_OMP_API void GOMP_target_update(int device, const void *unused, size_t mapnum,
                                      void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    MISSING("GOMP_target_update (the target update construct)");
}

SPOOL_OMP_API void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
                                          size_t *sizes, unsigned short *kinds,
                                          unsigned int flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags,
        (void)depend;
    MISSING("GOMP_target_update_ext (the target update construct)");
}

SPOOL_OMP_API void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                               size_t *sizes, unsigned short *kinds,
                                               unsigned int flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags,
        (void)depend;
    MISSING("GOMP_target_enter_exit_data (target enter/exit data)");
}
