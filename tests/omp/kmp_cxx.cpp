// libspool-omp's __kmpc_ door with C++ objects, in a program built by
// clang++ (-fnoopenmp-use-tls) and linked with libspool-omp where libomp
// would be: a task's firstprivate objects are built in the task's block and
// destroyed through the destructors the block's data1 names; a taskloop's
// chunks get copies through task_dup; a prioritized task (data2) runs; a
// threadprivate object without TLS is built by its constructor
// (__kmpc_threadprivate_register).  Run with OMP_NUM_THREADS=4 (ctest).
#include <atomic>

#define KMP_TEST "kmp_cxx"
#include "kmp_check.h"

static std::atomic<int> alive{0}, built{0};

struct Counted {
    int value;
    Counted() : value(7) { alive++, built++; }
    Counted(const Counted &o) : value(o.value) { alive++, built++; }
    ~Counted() { alive--; }
};

static void task_objects()
{
    std::atomic<int> sum{0};
    built = 0;
    {
        Counted c;
        c.value = 3;
#pragma omp parallel
#pragma omp single
        {
            for (int k = 0; k < 100; k++) {
#pragma omp task firstprivate(c) priority(k % 3)
                sum += c.value;
            }
#pragma omp taskwait
        }
    }
    CHECK(sum == 300);
    CHECK(alive == 0 && built == 101);

    built = 0;
    std::atomic<int> iters{0};
    {
        Counted c;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop firstprivate(c) grainsize(10)
        for (int k = 0; k < 100; k++)
            iters += c.value == 7;
    }
    CHECK(iters == 100);
    CHECK(alive == 0 && built > 1);
}

struct Tp {
    int value;
    Tp() : value(7) {}
};
static Tp tp;
#pragma omp threadprivate(tp)

static void threadprivate_objects()
{
    int bad = 0;
    tp.value = 42;
#pragma omp parallel num_threads(4) reduction(+ : bad)
    {
        // The initial thread's copy is the variable; the others are built
        // by the constructor.
        if (omp_get_thread_num() == 0)
            bad += tp.value != 42;
        else
            bad += tp.value != 7;
        tp.value = omp_get_thread_num();
    }
    CHECK(bad == 0 && tp.value == 0);
}

int main()
{
    if (!check_threads())
        return 2;
    run_part("test_task_objects", task_objects);
    run_part("test_threadprivate_objects", threadprivate_objects);
    return check_end();
}
