/* Typed tasks declared here, implemented in typed_impl.c and used by
 * test_typed.c: a task's DECL and IMPL in two files. */
#ifndef SPOOL_TEST_TYPED_TASKS_H
#define SPOOL_TEST_TYPED_TASKS_H

#undef NDEBUG /* the typed checks are part of what test_typed tests */
#include "spool_typed.h"

/* The sum of a[0..n), split in halves down to 64 elements. */
SPOOL_TASK_DECL_2(long, tsum, const long *, long);
/* Adds 1 to each of a[0..n), split in halves. */
SPOOL_VOID_TASK_DECL_2(tinc, long *, long);
/* No parameters: 42. */
SPOOL_TASK_DECL_0(int, tanswer);

#endif
