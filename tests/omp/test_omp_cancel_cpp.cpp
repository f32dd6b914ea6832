// libspool-omp, cancellation in a C++ program: a task whose firstprivate
// objects gcc's copy function constructed still runs its body when its
// taskgroup is cancelled (its cancellation points end it early), so that
// the destructors at its end run; a cancelled taskgroup makes no new tasks,
// whose copies would never be destroyed.  Run with OMP_CANCELLATION=true.
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <csetjmp>
#include <dlfcn.h>
#include <omp.h>

extern "C" {
#include <cmocka.h>
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
}

namespace {

std::atomic<int> live{0};
std::atomic<int> bodies{0};

struct counted {
    int v = 0;
    counted() { live++; }
    counted(const counted &o) : v(o.v) { live++; }
    ~counted() { live--; }
};

void busy_us(int us)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < end) {
    }
}

void test_copies_destroyed(void **)
{
    assert_true(omp_get_cancellation());
    for (int round = 0; round < 20; round++) {
        counted c;
#pragma omp parallel num_threads(4)
#pragma omp single
#pragma omp taskgroup
        {
            for (int i = 0; i < 50; i++) {
#pragma omp task firstprivate(c)
                {
                    bodies++;
                    c.v++;
#pragma omp cancellation point taskgroup
                    busy_us(20);
#pragma omp cancel taskgroup if (i > 5)
                }
            }
        }
        assert_int_equal(live.load(), 1); // c alone
    }
    assert_true(bodies.load() > 0);
}

} // namespace

int main()
{
    // This program's OpenMP must run on libspool-omp.
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&GOMP_parallel), &info) == 0 || info.dli_fname == nullptr ||
        std::strstr(info.dli_fname, "spool-omp") == nullptr)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_destroyed),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
