// Typed tasks from C++17 (spool_typed.h): Cilk's spawn and sync with real
// arguments and results, here a parallel sum of a vector's halves that
// returns a struct, and fib.  Parameters and results are trivially
// copyable (a pointer and a length, a struct of two numbers).
//
//   spool_example_typed [N]      (default 1,000,000)
#include <spool_typed.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct stats {
    double sum;
    long count;
};

// The sum and count of a[0 .. n), halving down to 4096 elements a task.
SPOOL_TASK_2(stats, sum_of, const double *, a, size_t, n)
{
    if (n <= 4096) {
        stats s = {0.0, (long)n};
        for (size_t i = 0; i < n; i++)
            s.sum += a[i];
        return s;
    }
    SPOOL_SPAWN(sum_of, a + n / 2, n - n / 2); // offered to thieves
    stats left = SPOOL_CALL(sum_of, a, n / 2);  // run here
    stats right = SPOOL_SYNC(sum_of);           // here, unless stolen
    return stats{left.sum + right.sum, left.count + right.count};
}

SPOOL_TASK_1(long, fib, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(fib, n - 2);
    long a = SPOOL_CALL(fib, n - 1);
    return a + SPOOL_SYNC(fib);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000000;
    std::vector<double> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = double(i % 7);
    stats s = SPOOL_RUN(sum_of, x.data(), x.size()); // the global pool, this thread taking part
    double expect = 0;
    for (double v : x)
        expect += v;
    long f = SPOOL_RUN(fib, 30);
    std::printf("sum %.0f over %ld elements, fib(30) = %ld\n", s.sum, s.count, f);
    return s.sum == expect && s.count == (long)n && f == 832040 ? 0 : 1;
}
