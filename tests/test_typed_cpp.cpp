// Typed tasks compiled as C++17 (spool_typed.h): fib and a struct result
// against the sequential recursion, from outside and in pools of 1, 2 and
// 4 workers; tasks that call spool.hpp inside their bodies; tasks that
// thieves run (more than one thread index seen); a task that throws ends
// the program (noexcept) instead of unwinding past its spawns.  Its C
// twin is test_typed.c.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include <cmocka.h>
}

#include <spool.hpp>
#include <spool_typed.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

SPOOL_TASK_1(long, fib, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(fib, n - 2);
    long a = SPOOL_CALL(fib, n - 1);
    return a + SPOOL_SYNC(fib);
}

static long fib_seq(long n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

struct range_stats {
    long sum;
    long min;
    long max;
};

// Spawns in a loop (eight parts), synced newest first.
SPOOL_TASK_2(range_stats, stats_of, const long *, a, size_t, n)
{
    if (n <= 64) {
        range_stats s = {0, a[0], a[0]};
        for (size_t i = 0; i < n; i++) {
            s.sum += a[i];
            s.min = a[i] < s.min ? a[i] : s.min;
            s.max = a[i] > s.max ? a[i] : s.max;
        }
        return s;
    }
    size_t part = n / 8;
    for (int k = 1; k < 8; k++)
        SPOOL_SPAWN(stats_of, a + k * part, k == 7 ? n - 7 * part : part);
    range_stats s = SPOOL_CALL(stats_of, a, part);
    for (int k = 7; k >= 1; k--) {
        range_stats r = SPOOL_SYNC(stats_of);
        s.sum += r.sum;
        s.min = r.min < s.min ? r.min : s.min;
        s.max = r.max > s.max ? r.max : s.max;
    }
    return s;
}

static void test_fib(void **state)
{
    (void)state;
    assert_int_equal(SPOOL_RUN(fib, 25), fib_seq(25));
    for (unsigned t : {1u, 2u, 4u}) {
        spool::pool pool(t);
        for (long n = 0; n < 24; n += 5)
            assert_int_equal(SPOOL_RUN_IN(pool.get(), fib, n), fib_seq(n));
    }
}

static void test_struct_result(void **state)
{
    (void)state;
    std::vector<long> v(100000);
    long sum = 0;
    for (size_t i = 0; i < v.size(); i++) {
        v[i] = (long)((i * 7919) % 10007) - 5000;
        sum += v[i];
    }
    range_stats s = SPOOL_RUN(stats_of, v.data(), v.size());
    assert_int_equal(s.sum, sum);
    assert_int_equal(s.min, -5000);
    assert_int_equal(s.max, 10006 - 5000);
    spool::pool pool(4);
    range_stats p = SPOOL_RUN_IN(pool.get(), stats_of, v.data(), v.size());
    assert_int_equal(p.sum, sum);
}

// A task whose body joins with spool.hpp and runs a parallel loop.
SPOOL_TASK_1(long, mixed, long, n)
{
    long a = 0, b = 0;
    spool::join([&] { a = SPOOL_RUN(fib, n); }, [&] { b = SPOOL_RUN(fib, n - 1); });
    std::atomic<long> loop{0};
    spool::parallel_for(0, 1000, [&](size_t i) { loop.fetch_add((long)i); });
    SPOOL_SPAWN(fib, n - 2);
    long c = SPOOL_CALL(fib, n - 3);
    return a + b + c + SPOOL_SYNC(fib) + (loop.load() == 999 * 1000 / 2 ? 0 : 1000000);
}

static void test_mixed_with_spool_hpp(void **state)
{
    (void)state;
    long expect = fib_seq(18) + fib_seq(17) + fib_seq(15) + fib_seq(16);
    assert_int_equal(SPOOL_RUN(mixed, 18), expect);
    spool::pool pool(2);
    assert_int_equal(SPOOL_RUN_IN(pool.get(), mixed, 18), expect);
}

static std::atomic<unsigned> seen_mask{0};
static std::atomic<bool> first_leaf_taken{false};

// How long a round's first leaf waits for a second thread to run a leaf:
// long enough for a woken thief to be scheduled on a loaded machine.
static const auto THIEF_DEADLINE = std::chrono::milliseconds(500);

SPOOL_VOID_TASK_1(busy_leaf, int, depth)
{
    if (depth > 0) {
        SPOOL_SPAWN(busy_leaf, depth - 1);
        SPOOL_CALL(busy_leaf, depth - 1);
        SPOOL_SYNC(busy_leaf);
        return;
    }
    int i = spool_current_thread_index();
    if (i >= 0 && i < 32)
        seen_mask.fetch_or(1u << i);
    // The round's first leaf holds its thread until another thread has run
    // a leaf (the spawns above it are public by then: rule 1 of
    // frames.md) or the deadline, so that a thief scheduled late still
    // finds them.
    if (!first_leaf_taken.exchange(true)) {
        auto deadline = std::chrono::steady_clock::now() + THIEF_DEADLINE;
        while (__builtin_popcount(seen_mask.load()) < 2 &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
    }
    for (volatile int k = 0; k < 20000; k++)
        ;
}

static void test_thieves_run_tasks(void **state)
{
    (void)state;
    spool::pool pool(4);
    unsigned rounds = 0;
    do {
        seen_mask.store(0);
        first_leaf_taken.store(false);
        SPOOL_RUN_IN(pool.get(), busy_leaf, 8);
    } while (__builtin_popcount(seen_mask.load()) < 2 && ++rounds < 10);
    assert_true(__builtin_popcount(seen_mask.load()) >= 2);
}

SPOOL_TASK_1(int, thrower, int, n)
{
    if (n == 0)
        throw std::runtime_error("from a typed task");
    SPOOL_SPAWN(thrower, n - 1);
    int a = SPOOL_CALL(thrower, n - 1);
    return a + SPOOL_SYNC(thrower);
}

static void test_throw_terminates(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        // stderr off: std::terminate's message is expected.
        (void)!freopen("/dev/null", "w", stderr);
        int r = SPOOL_RUN(thrower, 3);
        _exit(r == 0 ? 0 : 1); // not reached
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main()
{
    const struct CMUnitTest tests[] = {
        // First: the fork comes before this process has started any
        // thread (ThreadSanitizer starts none in a multithreaded fork).
        cmocka_unit_test(test_throw_terminates),
        cmocka_unit_test(test_fib),
        cmocka_unit_test(test_struct_result),
        cmocka_unit_test(test_mixed_with_spool_hpp),
        cmocka_unit_test(test_thieves_run_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
