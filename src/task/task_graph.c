/* The cycle check of spool_task_precede (task.h, task.md): a walk down the
 * successor lists under task.c's graph lock. */
#include <stdlib.h>
#include <string.h>

#include "task/task.h"
#include "platform/test_hooks.h"

/* The walk's mark; guarded by the graph lock, which every caller holds. */
static uint64_t graph_epoch;

/* Can `from` reach `to` through successor lists?  1 yes,
 * 0 no, -1 out of memory.  Each node visited is referenced while it is on
 * the walk's stack (a predecessor finishing meanwhile drops its list's
 * reference).  A task with no successor reaches nothing: the common case
 * of a graph built forwards costs no walk. */
int spool__task_reaches(spool_task_t *from, spool_task_t *to)
{
    spool__task_lock(from);
    bool leaf = from->finished || from->nsucc == 0;
    spool__task_unlock(from);
    if (leaf)
        return from == to;
    uint64_t epoch = ++graph_epoch;
    spool_task_t *small[64];
    spool_task_t **stack = small;
    size_t n = 0, cap = sizeof small / sizeof *small;
    spool__task_ref(from);
    stack[n++] = from;
    from->visit = epoch;
    int found = 0;
    while (n > 0) {
        spool_task_t *x = stack[--n];
        if (x == to)
            found = 1;
        spool__task_lock(x);
        for (size_t i = 0; found == 0 && !x->finished && i < x->nsucc; i++) {
            spool_task_t *y = x->succ[i];
            if (y->visit == epoch)
                continue;
            if (n == cap) {
                spool_task_t **grown = NULL;
                if (!spool__test_alloc_fails())
                    grown = stack == small ? malloc(2 * cap * sizeof *grown)
                                           : realloc(stack, 2 * cap * sizeof *grown);
                if (grown == NULL) {
                    found = -1;
                    break;
                }
                if (stack == small)
                    memcpy(grown, small, sizeof small);
                stack = grown;
                cap *= 2;
            }
            y->visit = epoch;
            spool__task_ref(y);
            stack[n++] = y;
        }
        spool__task_unlock(x);
        spool__task_unref(x);
        if (found != 0) {
            while (n > 0)
                spool__task_unref(stack[--n]);
        }
    }
    if (stack != small)
        free(stack);
    return found;
}
