/* libspool-omp's __kmpc_ door: an OpenMP program built by clang (LLVM's
 * ABI), linked with libspool-omp where libomp would be.  Each construct's
 * result is checked; the first wrong one ends the program with a line
 * naming it.  Run with OMP_NUM_THREADS=4 (ctest). */
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spool.h"

#define KMP_TEST "kmp_door"
#include "kmp_check.h"

static void parallel_regions(void)
{
    atomic_int count = 0, workers = 0, ids = 0;
    int size = 0;
#pragma omp parallel
    {
        atomic_fetch_add(&count, 1);
        atomic_fetch_or(&ids, 1 << omp_get_thread_num());
        if (spool_current_thread_index() >= 0)
            atomic_fetch_add(&workers, 1);
#pragma omp master
        size = omp_get_num_threads();
    }
    CHECK(count == 4 && size == 4 && ids == 0xf);
    CHECK(workers == 3); /* the team is the pool's workers and this thread */

    count = 0;
#pragma omp parallel num_threads(2)
    atomic_fetch_add(&count, 1);
    CHECK(count == 2);

    int off = 0;
    count = 0;
#pragma omp parallel if (off)
    {
        atomic_fetch_add(&count, 1);
        CHECK(omp_get_num_threads() == 1 && omp_get_level() == 1);
    }
    CHECK(count == 1);

    /* Many shared variables of several kinds. */
    int a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, i = 9, j = 10;
    double x = 0.5;
    long sum = 0;
#pragma omp parallel num_threads(3) reduction(+ : sum)
    sum += a + b + c + d + e + f + g + h + i + j + (long)(x * 2);
    CHECK(sum == 3 * 56);

    /* Nested regions: an inactive one inside unless max-active-levels
     * allows more. */
    atomic_int inner = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        {
            atomic_fetch_add(&inner, 1);
            CHECK(omp_get_level() == 2);
        }
    }
    CHECK(inner == 2 || inner == 4);
}

enum { N = 10007 };
static int hits[N];

static int all_once(void)
{
    for (int k = 0; k < N; k++)
        if (hits[k] != 1)
            return 0;
    return 1;
}

static void loops(void)
{
    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());

    /* schedule(static): libomp's (and libgomp's) blocks, one per thread. */
    int owner[16];
#pragma omp parallel for schedule(static) num_threads(4)
    for (int k = 0; k < 16; k++)
        owner[k] = omp_get_thread_num();
    for (int k = 0; k < 16; k++)
        CHECK(owner[k] == k / 4);
#pragma omp parallel for schedule(static, 3) num_threads(4)
    for (int k = 0; k < 16; k++)
        owner[k] = omp_get_thread_num();
    for (int k = 0; k < 16; k++)
        CHECK(owner[k] == (k / 3) % 4);
    /* schedule(simd:static, 4): libomp's balanced blocks, a multiple of
     * the chunk (clang's kmp_sch_static_balanced_chunked): 8, 8, 8, none,
     * not chunks of 4 dealt round-robin. */
    int owner24[24];
#pragma omp parallel for schedule(simd : static, 4) num_threads(4)
    for (int k = 0; k < 24; k++)
        owner24[k] = omp_get_thread_num();
    for (int k = 0; k < 24; k++)
        CHECK(owner24[k] == k / 8);

    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(static, 7)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());

    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(dynamic, 5)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());

    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(guided)
    for (int k = N - 1; k >= 0; k--)
        hits[k]++;
    CHECK(all_once());

    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < N; k += 1)
        hits[k]++;
    CHECK(all_once());

    /* Unsigned and 64-bit loops, a stride, an empty loop. */
    unsigned long long total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 3)
    for (unsigned long long k = 5; k < 1000005ull; k += 7)
        total += k;
    unsigned long long want = 0;
    for (unsigned long long k = 5; k < 1000005ull; k += 7)
        want += k;
    CHECK(total == want);
    long long ran = 0;
#pragma omp parallel for reduction(+ : ran)
    for (long long k = 10; k < 10; k++)
        ran++;
    CHECK(ran == 0);
    unsigned count = 0;
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (unsigned k = 4000000000u; k > 3999999000u; k--)
        count++;
    CHECK(count == 1000);

    /* ordered: the ordered regions in iteration order. */
    int order[200], next = 0;
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (int k = 0; k < 200; k++) {
#pragma omp ordered
        {
            /* A sleep inside: a later chunk's region let in meanwhile
             * (an ordered that waits for nothing) writes out of turn. */
            int slot = next;
            struct timespec us = {0, 20000};
            nanosleep(&us, NULL);
            order[slot] = k;
            next = slot + 1;
        }
    }
    for (int k = 0; k < 200; k++)
        CHECK(order[k] == k);

    /* nowait loops back to back, then collapse(2). */
    memset(hits, 0, sizeof hits);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic) nowait
        for (int k = 0; k < N / 2; k++)
            hits[k]++;
#pragma omp for schedule(guided) nowait
        for (int k = N / 2; k < N; k++)
            hits[k]++;
    }
    CHECK(all_once());
    long grid = 0;
#pragma omp parallel for collapse(2) reduction(+ : grid)
    for (int r = 0; r < 30; r++)
        for (int s = 0; s < 40; s++)
            grid += r * 40 + s;
    CHECK(grid == 1200L * 1199 / 2);

    /* sections */
    atomic_int sec = 0;
#pragma omp parallel sections
    {
#pragma omp section
        atomic_fetch_add(&sec, 1);
#pragma omp section
        atomic_fetch_add(&sec, 10);
#pragma omp section
        atomic_fetch_add(&sec, 100);
    }
    CHECK(sec == 111);
}

static void synchronization(void)
{
    long plain = 0;
    double fsum = 0;
    int maxv = -1;
#pragma omp parallel reduction(max : maxv) reduction(+ : fsum)
    {
        for (int k = 0; k < 200; k++) {
#pragma omp critical
            {
                /* A read, a sleep, a write: a thread let in meanwhile
                 * (a critical that excludes nothing) loses an update. */
                long v = plain;
                struct timespec us = {0, 100000};
                nanosleep(&us, NULL);
                plain = v + 1;
            }
        }
#pragma omp critical(named)
        plain += 0;
        maxv = omp_get_thread_num();
        fsum += 0.25;
    }
    CHECK(plain == 800 && maxv == 3 && fsum == 1.0);

    long at = 0;
#pragma omp parallel
    for (int k = 0; k < 1000; k++) {
#pragma omp atomic
        at += 2;
    }
    CHECK(at == 8000);

    /* single with copyprivate, barriers, masked. */
    atomic_int singles = 0, bad = 0;
#pragma omp parallel
    {
        for (int round = 0; round < 5; round++) {
            int mine = -1;
#pragma omp single copyprivate(mine)
            {
                /* Late, so that the others reach the copy first. */
                struct timespec ms = {0, 2000000};
                nanosleep(&ms, NULL);
                if (round == 0)
                    atomic_fetch_add(&singles, 1);
                mine = 42 + round;
            }
            if (mine != 42 + round)
                atomic_fetch_add(&bad, 1);
        }
        static int phase;
#pragma omp single
        phase = 1;
        if (phase != 1)
            atomic_fetch_add(&bad, 1);
#pragma omp barrier
#pragma omp single
        phase = 2;
        if (phase != 2)
            atomic_fetch_add(&bad, 1);
#pragma omp masked filter(2)
        atomic_fetch_add(&singles, 100);
#pragma omp flush
    }
    CHECK(singles == 101 && bad == 0);
}

static long slow_add(long a, long b)
{
    struct timespec ms = {0, 2000000};
    nanosleep(&ms, NULL);
    return a + b;
}
#pragma omp declare reduction(slowadd : long : omp_out = slow_add(omp_out, omp_in))               \
    initializer(omp_priv = 0)

/* Each round every thread writes its slot, waits at the barrier, and reads
 * every other slot of that round. */
static void barrier_rounds(void)
{
    atomic_int slots[4], stale = 0;
    for (int k = 0; k < 4; k++)
        atomic_init(&slots[k], -1);
#pragma omp parallel num_threads(4)
    {
        int me = omp_get_thread_num();
        for (int round = 0; round < 500; round++) {
            atomic_store(&slots[me], round);
#pragma omp barrier
            for (int k = 0; k < 4; k++)
                if (atomic_load(&slots[k]) < round)
                    atomic_fetch_add(&stale, 1);
#pragma omp barrier
        }
    }
    CHECK(stale == 0);

    /* A reduction whose combiner takes milliseconds between its read and
     * its write: two at once (without the construct's lock) lose one. */
    int lost = 0;
    for (int rep = 0; rep < 10 && !lost; rep++) {
        long total = 0;
#pragma omp parallel num_threads(4) reduction(slowadd : total)
        total += 1;
        lost |= total != 4;
    }
    CHECK(!lost);
}

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) if (n > 12)
    a = fib(n - 1);
#pragma omp task shared(b) if (n > 12)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static void tasks(void)
{
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(25);
    CHECK(r == 75025);

    /* firstprivate copies, a taskgroup, dependences in order. */
    atomic_long acc = 0;
    int seq[64], at = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        for (int k = 0; k < 100; k++) {
            int v = k;
#pragma omp task firstprivate(v)
            {
                /* Long enough to be pending when a wait that waits for
                 * nothing returns. */
                struct timespec us = {0, 100000};
                nanosleep(&us, NULL);
                atomic_fetch_add(&acc, v);
            }
        }
        CHECK(acc == 4950);
        int token = 0;
        for (int k = 0; k < 64; k++) {
#pragma omp task depend(inout : token) firstprivate(k) shared(seq, at)
            {
                /* A sleep between the read and the write: a task let in
                 * out of turn (no dependence) writes in the wrong slot. */
                int slot = at;
                struct timespec us = {0, 50000};
                nanosleep(&us, NULL);
                seq[slot] = k;
                at = slot + 1;
            }
        }
#pragma omp taskwait
        for (int k = 0; k < 64; k++)
            CHECK(seq[k] == k);
        /* An undeferred task, and a final one. */
        int done = 0;
#pragma omp task if (0) shared(done)
        done = 1;
        CHECK(done == 1);
#pragma omp task final(1) shared(done)
        {
            CHECK(omp_in_final());
            done = 2;
        }
#pragma omp taskwait
        CHECK(done == 2);
    }

    /* Untied tasks: clang splits their bodies into parts at their
     * scheduling points, each part submitting the task again. */
    atomic_int parts = 0;
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < 50; k++) {
#pragma omp task untied
        {
            atomic_fetch_add(&parts, 1);
#pragma omp taskyield
            atomic_fetch_add(&parts, 1);
#pragma omp task
            atomic_fetch_add(&parts, 1);
#pragma omp taskwait
            atomic_fetch_add(&parts, 1);
        }
    }
    CHECK(parts == 200);

    /* taskloop, with grainsize and num_tasks. */
    memset(hits, 0, sizeof hits);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop
        for (int k = 0; k < N; k++)
            hits[k]++;
#pragma omp taskloop grainsize(100)
        for (int k = 0; k < N; k++)
            hits[k]++;
#pragma omp taskloop num_tasks(7)
        for (int k = 0; k < N; k++)
            hits[k]++;
    }
    int ok = 1;
    for (int k = 0; k < N; k++)
        ok &= hits[k] == 3;
    CHECK(ok);
}

/* The teams construct on the host, and distribute loops over its teams. */
static void teams(void)
{
    int nteams = 0;
    atomic_int seen = 0;
#pragma omp teams num_teams(3)
    {
        if (omp_get_team_num() == 0)
            nteams = omp_get_num_teams();
        atomic_fetch_or(&seen, 1 << omp_get_team_num());
    }
    /* At most the teams asked (libomp gives fewer where CPUs are few). */
    CHECK(nteams >= 1 && nteams <= 3 && seen == (1 << nteams) - 1);

    memset(hits, 0, sizeof hits);
#pragma omp teams distribute num_teams(3)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());
    memset(hits, 0, sizeof hits);
#pragma omp teams distribute parallel for num_teams(2)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());
    memset(hits, 0, sizeof hits);
#pragma omp teams distribute parallel for num_teams(2) schedule(dynamic, 4)
    for (int k = 0; k < N; k++)
        hits[k]++;
    CHECK(all_once());
}

/* libomp's kmp_ extensions that programs call. */
static void extensions(void)
{
    kmp_set_blocktime(50);
    CHECK(kmp_get_blocktime() == 50);
    kmp_set_library_turnaround();
    CHECK(kmp_get_library() == 2);
    kmp_set_library_throughput();
    CHECK(kmp_get_stacksize_s() > 0);
    char *p = kmp_aligned_malloc(100, 64);
    CHECK(p != NULL && ((uintptr_t)p & 63) == 0);
    kmp_free(p);
    kmp_affinity_mask_t mask;
    kmp_create_affinity_mask(&mask);
    CHECK(kmp_get_affinity(&mask) == 0);
    int cpus = 0;
    for (int c = 0; c < kmp_get_affinity_max_proc() + 64; c++)
        cpus += kmp_get_affinity_mask_proc(c, &mask) == 1;
    CHECK(cpus >= 1);
    kmp_destroy_affinity_mask(&mask);
}

int main(void)
{
    if (!check_threads())
        return 2;
    run_part("test_parallel", parallel_regions);
    run_part("test_loops", loops);
    run_part("test_synchronization", synchronization);
    run_part("test_barrier_rounds", barrier_rounds);
    run_part("test_tasks", tasks);
    run_part("test_teams", teams);
    run_part("test_extensions", extensions);
    return check_end();
}
