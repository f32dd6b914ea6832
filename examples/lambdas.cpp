// spool from C++: lambdas go through a small trampoline, since the C API
// takes a function pointer and a void *.
#include <spool.h>

#include <cstdio>
#include <type_traits>

namespace {

template <class F> void call_lambda(void *arg) { (*static_cast<F *>(arg))(); }

// spool_join for any two callables (closures may capture by reference: both
// have run when join returns).
template <class A, class B> void join(A &&a, B &&b)
{
    spool_join(call_lambda<std::remove_reference_t<A>>, &a,
               call_lambda<std::remove_reference_t<B>>, &b);
}

template <class F> void call_scope_body(spool_scope_t *scope, void *arg)
{
    (*static_cast<F *>(arg))(scope);
}

// spool_scope with a lambda body.
template <class F> void scope(F &&body)
{
    spool_scope(call_scope_body<std::remove_reference_t<F>>, &body);
}

long fib(long n)
{
    if (n < 2)
        return n;
    long x = 0, y = 0;
    join([&] { x = fib(n - 1); }, [&] { y = fib(n - 2); });
    return x + y;
}

struct square_task {
    long *out;
    long k;
};

} // namespace

int main()
{
    long f = fib(25);

    long squares[8] = {};
    square_task tasks[8];
    scope([&](spool_scope_t *s) {
        for (long k = 0; k < 8; k++) {
            tasks[k] = {squares, k};
            // A captureless lambda converts to the C function pointer.
            spool_scope_spawn(
                s,
                [](spool_scope_t *, void *arg) {
                    auto *t = static_cast<square_task *>(arg);
                    t->out[t->k] = t->k * t->k;
                },
                &tasks[k]);
        }
    });
    long sum = 0;
    for (long v : squares)
        sum += v;
    std::printf("fib(25) = %ld, sum of squares 0..7 = %ld\n", f, sum);
    return f == 75025 && sum == 140 ? 0 : 1;
}
