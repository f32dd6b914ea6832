/* libspool-omp: explicit tasks, taskwait, taskgroup, dependences,
 * taskloop, task reductions, detach and taskgroup cancellation, each
 * with its result checked.  Counts: SPOOL_TEST_TASKS (the million tasks), SPOOL_TEST_FIB. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_test.h"

#include "spool.h"

static long fib_task(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib_task(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib_task(n - 2);
#pragma omp taskwait
    return a + b;
}

static void test_fib(void **state)
{
    (void)state;
    int n = (int)test_iters("SPOOL_TEST_FIB", 30);
    for (int threads = 1; threads <= 4; threads *= 2) {
        long r = -1;
#pragma omp parallel num_threads(threads)
#pragma omp single
        r = fib_task(n);
        assert_int_equal(r, (long)fib_expected((unsigned)n));
    }
    /* Outside any region: every task runs at once. */
    assert_int_equal(fib_task(20), 6765);
}

/* A million tasks from one thread; each counts, and runs on a thread of
 * the team (its thread number in range). */
static void test_million(void **state)
{
    (void)state;
    unsigned long n = test_iters("SPOOL_TEST_TASKS", 1000000);
    atomic_ulong count = 0, outside = 0;
    int team = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            team = omp_get_num_threads();
            for (unsigned long i = 0; i < n; i++) {
#pragma omp task
                {
                    int t = omp_get_thread_num();
                    if (t < 0 || t >= omp_get_num_threads())
                        atomic_fetch_add(&outside, 1);
                    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
                }
            }
        }
        /* The single's barrier completes every task. */
        if (atomic_load(&count) != n)
            atomic_fetch_add(&outside, 1000000);
    }
    assert_true(team >= 1);
    assert_int_equal(atomic_load(&count), n);
    assert_int_equal(atomic_load(&outside), 0);
}

/* Every thread makes tasks at once; each thread's implicit barrier at the
 * region's end, and an explicit one, complete them. */
static void test_every_thread(void **state)
{
    (void)state;
    enum { PER = 20000 };
    atomic_long sum = 0;
    long seen_at_barrier = -1;
    int threads = 0;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
        for (int i = 0; i < PER; i++) {
#pragma omp task firstprivate(i)
            atomic_fetch_add_explicit(&sum, i, memory_order_relaxed);
        }
#pragma omp barrier
#pragma omp master
        seen_at_barrier = atomic_load(&sum);
#pragma omp barrier
        for (int i = 0; i < PER; i++) {
#pragma omp task firstprivate(i)
            atomic_fetch_add_explicit(&sum, 1, memory_order_relaxed);
        }
    }
    long per = (long)PER * (PER - 1) / 2;
    assert_int_equal(seen_at_barrier, per * threads);
    assert_int_equal(atomic_load(&sum), per * threads + (long)PER * threads);
}

/* The region's end completes tasks made where no barrier follows (a
 * master's). */
static void test_region_end(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        atomic_int count = 0;
#pragma omp parallel num_threads(4)
#pragma omp master
        {
            /* The others have reached the region's end, seeing no task. */
            test_busy_ns(2000000);
            for (int i = 0; i < 500; i++) {
#pragma omp task shared(count)
                {
                    test_busy_ns(1000);
                    atomic_fetch_add(&count, 1);
                }
            }
        }
        assert_int_equal(atomic_load(&count), 500);
    }
    /* A thread at the region's end stays available, as at libgomp's final
     * barrier: thread 0 makes a task after thread 1 has ended and waits for
     * it to run there (it gives up after 5 s and runs it itself). */
    atomic_int ended = 0, ran_on = -1;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            while (!atomic_load(&ended))
                test_sleep_ms(1);
            test_sleep_ms(20);
#pragma omp task
            atomic_store(&ran_on, omp_get_thread_num());
            struct timespec t0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            while (atomic_load(&ran_on) < 0 && test_ms_since(&t0) < 5000)
                test_sleep_ms(1);
        } else {
            atomic_store(&ended, 1);
        }
    }
    assert_int_equal(atomic_load(&ran_on), 1);
}

/* taskwait waits for children, not grandchildren; taskgroup for all
 * descendants. */
static void test_taskwait_taskgroup(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        atomic_int child = 0, grandchild = 0, in_group = 0;
        int child_seen = -1, group_seen = -1;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            for (int i = 0; i < 8; i++) {
#pragma omp task
                {
                    test_busy_ns(20000);
                    atomic_fetch_add(&child, 1);
                }
            }
#pragma omp taskwait
            child_seen = atomic_load(&child);
#pragma omp taskgroup
            {
                for (int i = 0; i < 4; i++) {
#pragma omp task
                    {
                        for (int j = 0; j < 4; j++) {
#pragma omp task
                            {
                                test_busy_ns(10000);
                                atomic_fetch_add(&in_group, 1);
                            }
                        }
                    }
                }
            }
            group_seen = atomic_load(&in_group);
#pragma omp task
            {
#pragma omp task
                atomic_fetch_add(&grandchild, 1);
            }
        }
        assert_int_equal(child_seen, 8);
        assert_int_equal(group_seen, 16);
        assert_int_equal(atomic_load(&grandchild), 1);
    }
}

/* A taskgroup inside a task, around tasks that make tasks. */
static void test_nested_taskgroups(void **state)
{
    (void)state;
    atomic_int done = 0;
    int ok = 1;
#pragma omp parallel num_threads(4)
#pragma omp single
    for (int t = 0; t < 8; t++) {
#pragma omp task shared(ok, done)
        {
            atomic_int mine = 0;
#pragma omp taskgroup
            for (int i = 0; i < 10; i++) {
#pragma omp task shared(mine, done)
                {
#pragma omp task shared(mine, done)
                    {
                        atomic_fetch_add(&mine, 1);
                        atomic_fetch_add(&done, 1);
                    }
                }
            }
            if (atomic_load(&mine) != 10)
                ok = 0;
        }
    }
    assert_int_equal(ok, 1);
    assert_int_equal(atomic_load(&done), 80);
}

/* A chain: out, then in, then inout, in order; and a diamond. */
static void test_depend_chain_diamond(void **state)
{
    (void)state;
    for (int rep = 0; rep < 50; rep++) {
        int x = 0, log[4] = {0}, pos = 0, a = 0, b = 0, c = 0, d = -1;
        atomic_int n = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
#pragma omp task depend(out : x) shared(x, log, n)
            {
                test_busy_ns(30000);
                x = 1;
                log[atomic_fetch_add(&n, 1)] = 1;
            }
#pragma omp task depend(in : x) shared(x, log, n)
            log[atomic_fetch_add(&n, 1)] = x == 1 ? 2 : -2;
#pragma omp task depend(in : x) shared(x, log, n)
            log[atomic_fetch_add(&n, 1)] = x == 1 ? 2 : -2;
#pragma omp task depend(inout : x) shared(x, log, n)
            {
                x = 2;
                log[atomic_fetch_add(&n, 1)] = 3;
            }
            /* The diamond: a -> (b, c) -> d. */
#pragma omp task depend(out : a) shared(a)
            {
                test_busy_ns(20000);
                a = 5;
            }
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
            b = a + 1;
#pragma omp task depend(in : a) depend(out : c) shared(a, c)
            c = a + 2;
#pragma omp task depend(in : b, c) shared(b, c, d)
            d = b * c;
#pragma omp taskwait depend(in : x)
            pos = x;
        }
        assert_int_equal(log[0], 1);
        assert_int_equal(log[1], 2);
        assert_int_equal(log[2], 2);
        assert_int_equal(log[3], 3);
        assert_int_equal(pos, 2);
        assert_int_equal(d, 6 * 7);
    }
}

/* mutexinoutset and a depobj; if(0) with a dependence waits for it. */
static void test_depend_kinds(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        int x = 0, y = 0, got = -1;
        atomic_int inside = 0, overlap = 0;
        omp_depend_t obj;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
#pragma omp depobj(obj) depend(inout : y)
#pragma omp task depend(out : x) shared(x)
            {
                test_busy_ns(20000);
                x = 10;
            }
            for (int i = 0; i < 4; i++) {
#pragma omp task depend(mutexinoutset : x) shared(x, inside, overlap)
                {
                    if (atomic_fetch_add(&inside, 1) != 0)
                        atomic_fetch_add(&overlap, 1);
                    x += 1;
                    test_busy_ns(5000);
                    atomic_fetch_sub(&inside, 1);
                }
            }
#pragma omp task depend(depobj : obj) depend(in : x) shared(x, y)
            y = x;
#pragma omp task depend(in : y) if (0) shared(y, got)
            got = y;
#pragma omp depobj(obj) destroy
        }
        assert_int_equal(atomic_load(&overlap), 0);
        assert_int_equal(x, 14);
        assert_int_equal(got, 14);
    }
}

/* depend(iterator(...)): gcc's array lists the iterations' addresses, and
 * an empty range gives an array of no dependences. */
static void test_depend_iterator(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        int a[4] = {0, 0, 0, 0}, none = 0, n = rep % 2 == 0 ? 0 : 4, sum = -1;
        atomic_int ran = 0;
        (void)none; /* read in the iterators, which gcc does not count */
        (void)n;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            for (int k = 0; k < 4; k++) {
#pragma omp task depend(out : a[k]) shared(a)
                {
                    test_busy_ns(5000);
                    a[k] = k + 1;
                }
            }
#pragma omp task depend(iterator(j = 0 : 4), in : a[j]) shared(a, sum)
            sum = a[0] + a[1] + a[2] + a[3];
#pragma omp task depend(iterator(j = 0 : n), inout : a[j]) shared(ran)
            atomic_fetch_add(&ran, 1);
#pragma omp task depend(iterator(j = 0 : none), out : a[j]) shared(ran)
            atomic_fetch_add(&ran, 1);
        }
        assert_int_equal(sum, 10);
        assert_int_equal(atomic_load(&ran), 2);
    }
}

/* Undeferred, final and mergeable tasks run at once on the encountering
 * thread; omp_in_final says so in a final task and its descendants. */
static void test_undeferred_final(void **state)
{
    (void)state;
    int ran = 0, in_final = -1, nested_final = -1, not_final = -1;
#pragma omp parallel num_threads(4)
#pragma omp single
    {
        int me = omp_get_thread_num(), where = -1;
#pragma omp task if (0) shared(ran, where)
        {
            ran = 1;
            where = omp_get_thread_num();
        }
        /* Undeferred: done before the construct returns. */
        assert_int_equal(ran, 1);
        assert_int_equal(where, me);
#pragma omp task final(1) shared(in_final, nested_final)
        {
            in_final = omp_in_final();
#pragma omp task shared(nested_final)
            nested_final = omp_in_final();
        }
#pragma omp task mergeable shared(not_final)
        not_final = omp_in_final();
    }
    assert_int_equal(in_final, 1);
    assert_int_equal(nested_final, 1);
    assert_int_equal(not_final, 0);
    /* A final task itself may be deferred (only its descendants are
     * included): made by thread 0, which then waits without running tasks,
     * it runs on thread 1, and its child there with it. */
    atomic_int final_on = -1, child_on = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0) {
#pragma omp task final(1)
        {
            atomic_store(&final_on, omp_get_thread_num());
#pragma omp task
            atomic_store(&child_on, omp_get_thread_num());
        }
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (atomic_load(&child_on) < 0 && test_ms_since(&t0) < 5000)
            test_sleep_ms(1);
    }
    assert_int_equal(atomic_load(&final_on), 1);
    assert_int_equal(atomic_load(&child_on), 1);
}

/* firstprivate copies of every size and alignment reach the task. */
typedef struct big {
    _Alignas(64) char bytes[1000];
} big_t;

static void test_firstprivate(void **state)
{
    (void)state;
    big_t big;
    for (int i = 0; i < 1000; i++)
        big.bytes[i] = (char)i;
    atomic_int bad = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
    for (int t = 0; t < 100; t++) {
        big.bytes[0] = (char)t;
#pragma omp task firstprivate(big, t) shared(bad)
        {
            if (((uintptr_t)&big & 63) != 0 || big.bytes[0] != (char)t || big.bytes[999] != (char)999)
                atomic_fetch_add(&bad, 1);
        }
    }
    assert_int_equal(atomic_load(&bad), 0);
}

/* taskloop: every iteration once, with grainsize, num_tasks, nogroup and
 * an unsigned long long loop. */
static void test_taskloop(void **state)
{
    (void)state;
    enum { N = 10007 };
    static atomic_int hits[N];
    for (int form = 0; form < 4; form++) {
        for (int i = 0; i < N; i++)
            atomic_store(&hits[i], 0);
        atomic_int tasks_seen = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            if (form == 0) {
#pragma omp taskloop grainsize(100)
                for (int i = 0; i < N; i++)
                    atomic_fetch_add(&hits[i], 1);
            } else if (form == 1) {
#pragma omp taskloop num_tasks(7)
                for (int i = N - 1; i >= 0; i--)
                    atomic_fetch_add(&hits[i], 1);
            } else if (form == 2) {
#pragma omp taskloop nogroup
                for (int i = 0; i < N; i += 1)
                    atomic_fetch_add(&hits[i], 1);
#pragma omp taskwait
            } else {
#pragma omp taskloop
                for (unsigned long long i = 0; i < N; i++)
                    atomic_fetch_add(&hits[i], 1);
            }
            atomic_store(&tasks_seen, 1);
        }
        for (int i = 0; i < N; i++)
            assert_int_equal(atomic_load(&hits[i]), 1);
        assert_int_equal(atomic_load(&tasks_seen), 1);
    }
}

/* How long a fulfilling task or thread waits before it fulfils: long enough
 * for the rest of the team to be scheduled on a loaded machine, so that a
 * task or region that does not wait for the event runs its check first. */
enum { FULFIL_DELAY_MS = 20 };

/* detach: the task completes when its event is fulfilled, by another
 * task; a dependent task waits for that. */
static void test_detach(void **state)
{
    (void)state;
    for (int rep = 0; rep < 10; rep++) {
        /* The fulfilling task waits until the dependent task has run (only
         * a detach that does not hold the dependence back lets it) or its
         * deadline.  The store of dependent_ran (seq-cst) pairs with
         * test_wait_at_least's load. */
        int x = 0, z = 0, y = 0;
        atomic_int dependent_ran = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
            x = 1;
#pragma omp task depend(in : x) shared(x, y, z, dependent_ran)
            {
                y = x + z;
                atomic_store(&dependent_ran, 1);
            }
#pragma omp task firstprivate(ev) shared(z, dependent_ran)
            {
                (void)test_wait_at_least(&dependent_ran, 1, FULFIL_DELAY_MS);
                z = 5;
                omp_fulfill_event(ev);
            }
        }
        assert_int_equal(x, 1);
        assert_int_equal(y, 6);
    }
}

/* Task reductions: a taskgroup's task_reduction with in_reduction tasks
 * (+ and *), a taskloop's reduction, reduction(task, ...) on a parallel,
 * a loop and sections, and a taskgroup's outside any region. */
static void test_task_reductions(void **state)
{
    (void)state;
    for (int rep = 0; rep < 10; rep++) {
        long sum = 0;
        double prod = 1;
#pragma omp parallel num_threads(4)
#pragma omp single
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : prod)
        for (int i = 1; i <= 200; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : prod) firstprivate(i)
            {
                sum += i;
                if (i <= 10)
                    prod *= 2;
            }
        }
        assert_int_equal(sum, 200 * 201 / 2);
        assert_true(prod == 1024.0);

        long t = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
#pragma omp taskloop reduction(+ : t) grainsize(7)
        for (int i = 0; i < 1000; i++)
            t += i;
        assert_int_equal(t, 499500);

        int x = 0, team = 0;
#pragma omp parallel num_threads(4) reduction(task, + : x)
        {
            x++;
#pragma omp single
            {
                team = omp_get_num_threads();
                for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+ : x)
                    x++;
                }
            }
        }
        assert_int_equal(x, team + 100);

        int y = 0, z = 0;
#pragma omp parallel num_threads(4)
        {
#pragma omp for reduction(task, + : y)
            for (int i = 0; i < 64; i++) {
                y++;
#pragma omp task in_reduction(+ : y)
                y += 2;
            }
#pragma omp sections reduction(task, + : z)
            {
#pragma omp section
                {
#pragma omp task in_reduction(+ : z)
                    z += 10;
                }
#pragma omp section
                z += 1;
            }
        }
        assert_int_equal(y, 64 * 3);
        assert_int_equal(z, 11);
    }
    /* On scope (OpenMP 5.1) and on a doacross loop: gcc's arrays as on a
     * loop, the construct's thread that comes first registers them. */
    for (int round = 0; round < 20; round++) {
        int sc = 0, da = 0;
#pragma omp parallel num_threads(4)
        {
#pragma omp scope reduction(task, + : sc)
            {
                sc++;
#pragma omp task in_reduction(+ : sc)
                sc += 2;
            }
#pragma omp for ordered(1) reduction(task, + : da)
            for (int i = 0; i < 32; i++) {
#pragma omp ordered depend(sink : i - 1)
                da++;
#pragma omp task in_reduction(+ : da)
                da += 2;
#pragma omp ordered depend(source)
            }
        }
        assert_int_equal(sc, 4 * 3);
        assert_int_equal(da, 32 * 3);
    }
    long o = 0;
#pragma omp taskgroup task_reduction(+ : o)
    for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : o)
        o += 3;
    }
    assert_int_equal(o, 30);
}

/* A detached task's body sees its own event and hands it on (as to an
 * asynchronous I/O's signal): fulfilled by another thread, undeferred
 * (if(0): the encountering task waits for it) and deferred.  A helper
 * marks its event's flag, then fulfils it. */
struct fulfil_later {
    omp_event_handle_t ev;
    atomic_int fulfilled;
};

static void *fulfill_later(void *arg)
{
    struct fulfil_later *f = arg;
    test_sleep_ms(FULFIL_DELAY_MS);
    atomic_store(&f->fulfilled, 1);
    omp_fulfill_event(f->ev);
    return NULL;
}

static void test_detach_event_in_body(void **state)
{
    (void)state;
    for (int rep = 0; rep < 5; rep++) {
        struct fulfil_later f[2];
        pthread_t helper[2];
        atomic_init(&f[0].fulfilled, 0);
        atomic_init(&f[1].fulfilled, 0);
        int undeferred_waited = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
        {
            omp_event_handle_t ev;
#pragma omp task detach(ev) if (0) shared(helper, f)
            {
                f[0].ev = ev;
                assert_int_equal(pthread_create(&helper[0], NULL, fulfill_later, &f[0]), 0);
            }
            /* Undeferred: complete (fulfilled) before the construct ends. */
            undeferred_waited = atomic_load(&f[0].fulfilled);
            omp_event_handle_t ev2;
#pragma omp task detach(ev2) shared(helper, f)
            {
                f[1].ev = ev2;
                assert_int_equal(pthread_create(&helper[1], NULL, fulfill_later, &f[1]), 0);
            }
        }
        /* The region's end waited for the second event. */
        assert_int_equal(undeferred_waited, 1);
        assert_int_equal(atomic_load(&f[1].fulfilled), 1);
        pthread_join(helper[0], NULL);
        pthread_join(helper[1], NULL);
    }
}

/* Outside any region: a detached task completes when its event is
 * fulfilled later by the same thread; taskwait waits for that. */
static void test_detach_outside(void **state)
{
    (void)state;
    int x = 0, y = 0;
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(x)
    x = 1;
    assert_int_equal(x, 1);
    omp_fulfill_event(ev);
#pragma omp task depend(in : x) shared(x, y)
    y = x + 1;
#pragma omp taskwait
    assert_int_equal(y, 2);
}

/* Cancelling a taskgroup: tasks not started do not run (run with
 * OMP_CANCELLATION=true in a child process). */
static int cancel_child(void)
{
    atomic_int ran = 0;
    int cancelled = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskgroup
    {
        for (int i = 0; i < 1000; i++) {
#pragma omp task shared(ran, cancelled)
            {
                if (atomic_fetch_add(&ran, 1) == 10) {
                    cancelled = 1;
#pragma omp cancel taskgroup
                }
                test_busy_ns(2000);
            }
        }
    }
    printf("ran %d cancelled %d cancellation %d\n", atomic_load(&ran), cancelled,
           omp_get_cancellation());
    return atomic_load(&ran) < 1000 && cancelled ? 0 : 1;
}

static void test_cancel_taskgroup(void **state)
{
    (void)state;
    char out[4096];
    const char *env[] = {"OMP_CANCELLATION=true", NULL};
    int rc = omp_test_child(env, "cancel", out, sizeof out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
}

/* priority (with OMP_MAX_TASK_PRIORITY=10, in a child process): of the
 * queued tasks, the one with a priority runs first, though it is the
 * oldest. */
static int priority_child(void)
{
    int order[4], pos = 0, team = 0;
    atomic_int go = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            team = omp_get_num_threads();
            /* Queued first: without its priority, the newest (the last
             * of the others) would run first. */
#pragma omp task priority(5) shared(order, pos)
            order[pos++] = 9;
            for (int i = 0; i < 3; i++) {
#pragma omp task shared(order, pos) firstprivate(i)
                order[pos++] = i;
            }
#pragma omp taskwait
            atomic_store(&go, 1);
        } else {
            /* Busy in its own code: it takes no task. */
            while (atomic_load(&go) == 0)
                ;
        }
    }
    printf("team %d order %d %d %d %d\n", team, order[0], order[1], order[2], order[3]);
    return team == 2 && order[0] == 9 ? 0 : 1;
}

static void test_priority(void **state)
{
    (void)state;
    char out[4096];
    const char *env[] = {"OMP_MAX_TASK_PRIORITY=10", "OMP_DYNAMIC=false", NULL};
    int rc = omp_test_child(env, "priority", out, sizeof out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
}

/* threadprivate data seen in a task is its thread's. */
static int tp_value;
#pragma omp threadprivate(tp_value)

static void test_threadprivate_in_task(void **state)
{
    (void)state;
    atomic_int bad = 0;
#pragma omp parallel num_threads(4)
    {
        tp_value = omp_get_thread_num() + 100;
#pragma omp barrier
#pragma omp single
        for (int i = 0; i < 2000; i++) {
#pragma omp task shared(bad)
            if (tp_value != omp_get_thread_num() + 100)
                atomic_fetch_add(&bad, 1);
        }
    }
    assert_int_equal(atomic_load(&bad), 0);
}

/* Tasks beside spool: a region's tasks call spool_join, and spool jobs
 * (on the global pool) open regions with tasks. */
static void region_with_tasks(void *arg)
{
    long *r = arg;
#pragma omp parallel num_threads(2)
#pragma omp single
    *r = fib_task(15);
}

static void test_with_spool(void **state)
{
    (void)state;
    atomic_ulong total = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
    for (int i = 0; i < 16; i++) {
#pragma omp task shared(total)
        {
            fib_task_t a = {.n = 18};
            fib_join(&a);
            atomic_fetch_add(&total, a.result);
        }
    }
    assert_int_equal(atomic_load(&total), 16 * fib_expected(18));
    for (int k = 0; k < 4; k++) {
        long a = 0, b = 0;
        spool_join(region_with_tasks, &a, region_with_tasks, &b);
        assert_int_equal(a, 610);
        assert_int_equal(b, 610);
    }
}

/* Tasks in a target region (run on the host) complete at its end. */
static void test_target_tasks(void **state)
{
    (void)state;
    int count = 0;
#pragma omp target map(tofrom : count)
    {
        for (int i = 0; i < 10; i++) {
#pragma omp task shared(count)
            {
#pragma omp atomic
                count++;
            }
        }
    }
    assert_int_equal(count, 10);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0 && strcmp(argv[2], "cancel") == 0)
        return cancel_child();
    if (argc == 3 && strcmp(argv[1], "--child") == 0 && strcmp(argv[2], "priority") == 0)
        return priority_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fib),
        cmocka_unit_test(test_million),
        cmocka_unit_test(test_every_thread),
        cmocka_unit_test(test_region_end),
        cmocka_unit_test(test_taskwait_taskgroup),
        cmocka_unit_test(test_nested_taskgroups),
        cmocka_unit_test(test_depend_chain_diamond),
        cmocka_unit_test(test_depend_kinds),
        cmocka_unit_test(test_depend_iterator),
        cmocka_unit_test(test_undeferred_final),
        cmocka_unit_test(test_firstprivate),
        cmocka_unit_test(test_taskloop),
        cmocka_unit_test(test_detach),
        cmocka_unit_test(test_task_reductions),
        cmocka_unit_test(test_detach_event_in_body),
        cmocka_unit_test(test_detach_outside),
        cmocka_unit_test(test_cancel_taskgroup),
        cmocka_unit_test(test_priority),
        cmocka_unit_test(test_threadprivate_in_task),
        cmocka_unit_test(test_with_spool),
        cmocka_unit_test(test_target_tasks),
    };
    omp_test_assert_on_spool();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
