// spool.hpp, the C++17 header: a parallel loop, a reduction, a scope, and
// an exception thrown in a spawned job coming back to the caller.
//
//   spool_example_cpp [N]        (default 1,000,000)
#include <spool.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000000;
    std::vector<double> x(n);
    spool::parallel_for(0, n, [&](size_t i) { x[i] = 1.0 / double(i + 1); });

    spool_for_opts_t opts = {4096, 0, SPOOL_FOR_FIXED}; // the same bits at any thread count
    double sum = spool::parallel_reduce(
        0, n, 0.0,
        [&](double acc, size_t b, size_t e) {
            for (; b < e; b++)
                acc += x[b];
            return acc;
        },
        [](double l, double r) { return l + r; }, &opts);

    // A pool of our own; a spawned job throws, the scope rethrows after all ran.
    spool::pool pool(2);
    int ran = 0;
    bool caught = false;
    pool.install([&] {
        std::vector<int> done(8, 0);
        try {
            spool::scope([&](spool::scope_ref s) {
                for (int i = 0; i < 8; i++)
                    s.spawn([&done, i] {
                        done[i] = 1;
                        if (i == 5)
                            throw std::runtime_error("job 5 failed");
                    });
            });
        } catch (const std::runtime_error &e) {
            caught = true;
            std::printf("caught: %s\n", e.what());
        }
        for (int d : done)
            ran += d;
    });
    double seq = 0.0;
    for (double v : x)
        seq += v;
    bool ok = sum > seq * (1 - 1e-12) && sum < seq * (1 + 1e-12) && caught && ran == 8;
    std::printf("sum of 1/i for i <= %zu: %.12f; %d jobs ran: %s\n", n, sum, ran,
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
