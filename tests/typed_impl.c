/* The other file of test_typed: bodies of the tasks typed_tasks.h
 * declares. */
#include "typed_tasks.h"

SPOOL_TASK_IMPL_2(long, tsum, const long *, a, long, n)
{
    if (n <= 64) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += a[i];
        return s;
    }
    SPOOL_SPAWN(tsum, a + n / 2, n - n / 2);
    long left = SPOOL_CALL(tsum, a, n / 2);
    return left + SPOOL_SYNC(tsum);
}

SPOOL_VOID_TASK_IMPL_2(tinc, long *, a, long, n)
{
    if (n <= 64) {
        for (long i = 0; i < n; i++)
            a[i]++;
        return;
    }
    SPOOL_SPAWN(tinc, a + n / 2, n - n / 2);
    SPOOL_CALL(tinc, a, n / 2);
    SPOOL_SYNC(tinc);
}

SPOOL_TASK_IMPL_0(int, tanswer)
{
    return 42;
}
