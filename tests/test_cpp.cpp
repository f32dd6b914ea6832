// spool.hpp: join (and join_inline), scope and scope_fifo, parallel_for, parallel_reduce,
// broadcast and the RAII pool; exceptions thrown in any of their callables
// come back to the caller once the call has finished; join allocates
// nothing.  Built with g++ and with clang++ (scripts/test.sh), C++17.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include <cmocka.h>
}

#include <spool.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

// Counts allocations, to show that join makes none.  Not in the memcheck
// build: valgrind intercepts a program's operator new but not its operator
// delete, and reports every pair as mismatched.
static std::atomic<long> allocations{0};
#ifndef SPOOL_MEMCHECK
#if defined(__GNUC__) && !defined(__clang__)
// These new and delete are a pair (malloc and free); gcc cannot see that.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void *operator new(std::size_t n)
{
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}
#endif

// Each test_join / test_join_exceptions runs with spool::join, then with
// spool::join_inline.
static bool inline_join = false;

template <class A, class B> static void join(A &&a, B &&b)
{
    if (inline_join)
        spool::join_inline(std::forward<A>(a), std::forward<B>(b));
    else
        spool::join(std::forward<A>(a), std::forward<B>(b));
}

static int use_join_inline(void **)
{
    inline_join = true;
    return 0;
}
static int use_join(void **)
{
    inline_join = false;
    return 0;
}

static long fib(long n)
{
    if (n < 2)
        return n;
    long a = 0, b = 0;
    join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
    return a + b;
}

static void test_join(void **)
{
    spool::pool p(4);
    long r = 0;
    p.install([&] { r = fib(20); });
    assert_int_equal(r, 6765);
    r = fib(18); // from outside: the global pool
    assert_int_equal(r, 2584);
    // Warmed up, a join inside the pool allocates nothing.
    long before = 0, after = 0;
    p.install([&] {
        before = allocations.load();
        r = fib(16);
        after = allocations.load();
    });
    assert_int_equal(r, 987);
    assert_int_equal(after - before, 0);
#ifndef SPOOL_MEMCHECK
    long counted = allocations.load();
    ::operator delete(::operator new(8)); // the counter counts (a call, unlike a new-expression, is not elided)
    assert_int_equal(allocations.load() - counted, 1);
#endif
}

static void test_join_exceptions(void **)
{
    spool::pool p(2);
    for (int which = 0; which < 3; which++) {
        std::atomic<int> ran{0};
        bool caught = false;
        std::string what;
        p.install([&] {
            try {
                join(
                    [&] {
                        ran++;
                        if (which != 1)
                            throw std::runtime_error("a");
                    },
                    [&] {
                        ran++;
                        if (which != 0)
                            throw std::runtime_error("b");
                    });
            } catch (const std::runtime_error &e) {
                caught = true;
                what = e.what();
            }
        });
        assert_true(caught);
        assert_int_equal(ran.load(), 2); // both halves ran
        assert_string_equal(what.c_str(), which == 1 ? "b" : "a"); // a's first
    }
}

static void test_scope(void **)
{
    std::atomic<long> sum{0};
    spool::scope([&](spool::scope_ref s) {
        for (long i = 0; i < 100; i++)
            s.spawn([&sum, i](spool::scope_ref inner) {
                sum += i;
                inner.spawn([&sum] { sum += 1000; }); // nested, no argument
            });
    });
    assert_int_equal(sum.load(), 4950 + 100 * 1000);
    // A FIFO scope on one thread runs its spawns in order.
    spool::pool one(1);
    std::vector<int> order;
    one.install([&] {
        spool::scope_fifo([&](spool::scope_ref s) {
            for (int i = 0; i < 10; i++)
                s.spawn([&order, i] { order.push_back(i); });
        });
    });
    assert_int_equal(order.size(), 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(order[i], i);
}

static void test_scope_exceptions(void **)
{
    std::atomic<int> ran{0};
    bool caught = false;
    try {
        spool::scope([&](spool::scope_ref s) {
            for (int i = 0; i < 50; i++)
                s.spawn([&ran, i] {
                    ran++;
                    if (i == 17)
                        throw std::logic_error("17");
                });
        });
    } catch (const std::logic_error &e) {
        caught = std::string(e.what()) == "17";
    }
    assert_true(caught);
    assert_int_equal(ran.load(), 50); // the scope still waited for all of them
    caught = false;
    try {
        spool::scope([&](spool::scope_ref) { throw std::out_of_range("body"); });
    } catch (const std::out_of_range &) {
        caught = true;
    }
    assert_true(caught);
}

static void test_task_group(void **)
{
    // Small trivially copyable callables (copied into the job) and large
    // ones (on the heap), from outside and on a worker, nested groups.
    std::atomic<long> sum{0};
    struct big {
        long pad[16];
    } b{};
    b.pad[15] = 7;
    auto body = [&] {
        spool::task_group g;
        for (long i = 0; i < 100; i++) {
            g.run([&sum, i] { sum += i; });
            g.run([&sum, b] { sum += b.pad[15]; });
            g.run([&sum](spool::scope_ref s) {
                spool::task_group inner;
                inner.run([&sum] { sum += 1000; });
                s.spawn([&sum] { sum += 1; }); // into the outer group
            });
        }
        g.wait();
    };
    body();
    assert_int_equal(sum.load(), 4950 + 100 * 7 + 100 * 1001);
    sum = 0;
    spool::pool two(2);
    two.install(body);
    assert_int_equal(sum.load(), 4950 + 100 * 7 + 100 * 1001);
    // A FIFO group on one thread runs in order; wait() rethrows; the group
    // takes jobs again after a wait; the destructor waits.
    spool::pool one(1);
    std::vector<int> order;
    bool caught = false;
    one.install([&] {
        spool::task_group g(true);
        for (int i = 0; i < 10; i++)
            g.run([&order, i] { order.push_back(i); });
        g.wait();
        g.run([] { throw std::runtime_error("x"); });
        try {
            g.wait();
        } catch (const std::runtime_error &) {
            caught = true;
        }
        g.run([&order] { order.push_back(10); });
    });
    assert_true(caught);
    assert_int_equal(order.size(), 11);
    for (int i = 0; i < 11; i++)
        assert_int_equal(order[i], i);
    // Cancelled: run() throws ECANCELED.
    spool::task_group g;
    g.cancel();
    assert_true(g.cancelled());
    caught = false;
    try {
        g.run([] {});
    } catch (const std::system_error &e) {
        caught = e.code().value() == ECANCELED;
    }
    assert_true(caught);
    g.wait();
}

static void test_parallel_for(void **)
{
    std::vector<std::atomic<int>> hits(10000);
    spool::parallel_for(0, hits.size(), [&](size_t i) { hits[i]++; });
    for (auto &h : hits)
        assert_int_equal(h.load(), 1);
    std::atomic<size_t> covered{0};
    spool_for_opts_t opts = {100, 0, SPOOL_FOR_FIXED};
    spool::parallel_for(
        0, 10000, [&](size_t b, size_t e) { covered += e - b; }, &opts);
    assert_int_equal(covered.load(), 10000);
    bool caught = false;
    try {
        spool::parallel_for(0, 10000, [&](size_t i) {
            if (i == 4321)
                throw std::runtime_error("index");
        });
    } catch (const std::runtime_error &) {
        caught = true;
    }
    assert_true(caught);
}

struct poly { // a hash of the index sequence: associative, not commutative
    uint64_t hash, power;
};

static void test_parallel_reduce(void **)
{
    spool::pool p(3);
    double sum = 0;
    poly h{0, 1};
    p.install([&] {
        sum = spool::parallel_reduce(
            0, 100000, 0.0,
            [](double acc, size_t b, size_t e) {
                for (; b < e; b++)
                    acc += 1.0;
                return acc;
            },
            [](double l, double r) { return l + r; });
        h = spool::parallel_reduce(
            0, 100000, poly{0, 1},
            [](poly acc, size_t b, size_t e) {
                for (; b < e; b++) {
                    acc.hash = acc.hash * 31 + b;
                    acc.power *= 31;
                }
                return acc;
            },
            [](poly l, poly r) { return poly{l.hash * r.power + r.hash, l.power * r.power}; });
    });
    assert_true(sum == 100000.0);
    uint64_t want = 0;
    for (uint64_t i = 0; i < 100000; i++)
        want = want * 31 + i;
    assert_true(h.hash == want); // index order kept
    bool caught = false;
    try {
        spool::parallel_reduce(
            0, 1000, 0,
            [](int acc, size_t b, size_t) -> int {
                if (b == 0)
                    throw std::runtime_error("fold");
                return acc;
            },
            [](int l, int r) { return l + r; });
    } catch (const std::runtime_error &) {
        caught = true;
    }
    assert_true(caught);
}

static void test_broadcast_and_pool(void **)
{
    spool::pool p(3);
    std::atomic<unsigned> runs{0}, index_sum{0};
    p.broadcast([&](unsigned index, unsigned n) {
        runs++;
        index_sum += index;
        assert_int_equal(n, 3);
    });
    assert_int_equal(runs.load(), 3);
    assert_int_equal(index_sum.load(), 3);
    bool caught = false;
    try {
        p.broadcast([] { throw std::runtime_error("everywhere"); });
    } catch (const std::runtime_error &) {
        caught = true;
    }
    assert_true(caught);
    // Scope broadcasts.
    std::atomic<unsigned> in_scope{0};
    p.install([&] {
        spool::scope([&](spool::scope_ref s) { s.spawn_broadcast([&](unsigned, unsigned) { in_scope++; }); });
    });
    assert_int_equal(in_scope.load(), 3);
    // Move-only RAII: the moved-from handle owns nothing, the new one works.
    spool::pool q = std::move(p);
    assert_null(p.get());
    assert_int_equal(q.num_threads(), 3);
    spool::pool r(1);
    r = std::move(q); // r's old pool is destroyed here
    assert_int_equal(r.num_threads(), 3);
    bool ok = false;
    r.install([&] { ok = spool_current_thread_index() >= 0; });
    assert_true(ok);
    caught = false;
    try {
        r.install([] { throw std::length_error("install"); });
    } catch (const std::length_error &) {
        caught = true;
    }
    assert_true(caught);
}

// spool::task and spool::completions: a chain built with then(), tags on
// the queue, exceptions rethrown by wait(), an unsubmitted task cancelled
// by its destructor (its tag posted), a submitted one waited for.
static void test_tasks_and_completions(void **)
{
    spool::pool p(2);
    spool::completions cq;
    std::vector<int> order;
    std::mutex lock;
    auto record = [&](int i) {
        std::lock_guard<std::mutex> hold(lock);
        order.push_back(i);
    };
    {
        spool::task a(p, [&] { record(1); });
        spool::task b = a.then([&] { record(2); });
        spool::task c = b.then([&] { record(3); });
        c.notify(cq, &order);
        c.submit();
        b.submit();
        a.submit();
        c.wait();
        assert_true(a.done() && b.done() && c.done());
        void *tag = nullptr;
        assert_int_equal(cq.wait(&tag, 1, 5000), 1);
        assert_ptr_equal(tag, &order);
    }
    assert_int_equal(order.size(), 3);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 3);
    bool caught = false;
    {
        spool::task t(p, [] { throw std::runtime_error("task"); });
        t.submit();
        try {
            t.wait();
        } catch (const std::runtime_error &) {
            caught = true;
        }
    }
    assert_true(caught);
    int ran = 0;
    {
        spool::task never(p, [&] { ran++; });
        never.notify(cq, &ran);
    } // released unsubmitted: cancelled, its tag posted
    void *tag = nullptr;
    assert_int_equal(cq.take(&tag, 1), 1);
    assert_ptr_equal(tag, &ran);
    assert_int_equal(ran, 0);
    {
        spool::task later(p, [&] { ran++; });
        later.submit();
    } // submitted: the destructor waits for it
    assert_int_equal(ran, 1);
    spool::task x(p, [] {});
    assert_true(x.cancel());
    assert_true(x.cancelled());
    bool threw = false;
    try {
        x.submit();
    } catch (const std::system_error &e) {
        threw = e.code().value() == EINVAL;
    }
    assert_true(threw);
    assert_true(cq.fd() >= 0);
}

// spool::isolate, scope_ref::cancel / cancelled, find_first / find_any.
static void test_isolate_cancel_find(void **)
{
    spool::pool p(2);
    p.install([&] {
        int inside = 0;
        spool::isolate([&] { spool::parallel_for(0, 100, [&](size_t) {}); inside = 1; });
        assert_int_equal(inside, 1);
        bool caught = false;
        try {
            spool::isolate([] { throw std::logic_error("isolate"); });
        } catch (const std::logic_error &) {
            caught = true;
        }
        assert_true(caught);
        std::atomic<int> ran{0};
        spool::scope([&](spool::scope_ref s) {
            s.cancel();
            assert_true(s.cancelled());
            bool refused = false;
            try {
                s.spawn([&] { ran++; });
            } catch (const std::system_error &e) {
                refused = e.code().value() == ECANCELED;
            }
            assert_true(refused);
        });
        assert_int_equal(ran.load(), 0);
        std::vector<int> v(100000);
        for (size_t i = 0; i < v.size(); i++)
            v[i] = (int)(i % 1000);
        size_t first = spool::find_first(0, v.size(), [&](size_t i) { return v[i] == 999; });
        assert_int_equal(first, 999);
        size_t any = spool::find_any(0, v.size(), [&](size_t i) { return v[i] == 500; });
        assert_true(any < v.size() && v[any] == 500);
        assert_int_equal(spool::find_first(0, v.size(), [](size_t) { return false; }), v.size());
        caught = false;
        try {
            spool::find_first(0, v.size(), [](size_t i) -> bool {
                if (i == 777)
                    throw std::runtime_error("find");
                return false;
            });
        } catch (const std::runtime_error &) {
            caught = true;
        }
        assert_true(caught);
    });
}

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_join, use_join),
        cmocka_unit_test_setup(test_join_exceptions, use_join),
        {"test_join (inline)", test_join, use_join_inline, nullptr, nullptr},
        {"test_join_exceptions (inline)", test_join_exceptions, use_join_inline, nullptr, nullptr},
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_scope_exceptions),
        cmocka_unit_test(test_task_group),
        cmocka_unit_test(test_parallel_for),
        cmocka_unit_test(test_parallel_reduce),
        cmocka_unit_test(test_broadcast_and_pool),
        cmocka_unit_test(test_tasks_and_completions),
        cmocka_unit_test(test_isolate_cancel_find),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
