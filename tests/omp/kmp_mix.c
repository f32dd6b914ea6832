/* One process, both ABIs on one pool (libspool-omp's two doors): this
 * file is built twice, by gcc (MIX_SIDE gcc) and by clang (MIX_SIDE
 * clang), into two shared libraries; each side's region makes tasks that
 * call the other side's, down to depth 0 (tests/omp/kmp_mixed.c runs
 * them). */
#include <omp.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define SIDE CAT(MIX_SIDE, _side)

/* Any function (void (*)(void) converts to and from every function type). */
typedef void (*any_fn)(void);
typedef long (*mix_fn)(int depth, long *widest, any_fn other);

/* The calls of the tree below this one, this one included: its region's
 * single thread makes 4 tasks, each calling the other side a level down;
 * *widest is the widest team seen. */
long SIDE(int depth, long *widest, any_fn other);
long SIDE(int depth, long *widest, any_fn other)
{
    if (depth == 0)
        return 1;
    long sum = 1;
#pragma omp parallel shared(sum)
    {
#pragma omp critical(mix_widest)
        if (omp_get_num_threads() > *widest)
            *widest = omp_get_num_threads();
#pragma omp single
        for (int k = 0; k < 4; k++) {
#pragma omp task shared(sum)
            {
                long r = ((mix_fn)other)(depth - 1, widest, (any_fn)SIDE);
#pragma omp atomic
                sum += r;
            }
        }
    }
    return sum;
}
