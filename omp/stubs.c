/* Entry points libgomp.so.1 exports that libspool-omp does not implement
 * yet (task reductions): each prints one line naming itself and aborts, so
 * that a program that needs one stops at once instead of running wrong. */
#include "gomp_abi.h"
#include "omp_impl.h"

#define MISSING(name) spool__omp_fatal("%s is not implemented yet", name)

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

