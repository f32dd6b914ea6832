/* libspool-omp's __kmpc_ door, the constructs whose work waits on other
 * work: doacross loops, task reductions and detached tasks, in a program
 * built by clang and linked with libspool-omp where libomp would be.  Each
 * result is checked; a wrong one ends the program with a line naming it.
 * Run with OMP_NUM_THREADS=4 (ctest). */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KMP_TEST "kmp_waits"
#include "kmp_check.h"

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* ---- doacross ------------------------------------------------------------------------------- */

enum { R = 40, C = 30 };
static long m[R][C];

/* Each cell is the sum of the one above and the one to the left: a cell
 * computed before either is done is wrong, and the corner says so. */
static int wavefront_right(void)
{
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            long want = i == 0 || j == 0 ? 1 : m[i - 1][j] + m[i][j - 1];
            if (m[i][j] != want)
                return 0;
        }
    return 1;
}

static void wavefront_reset(void)
{
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m[i][j] = i == 0 || j == 0 ? 1 : 0;
}

static void doacross(void)
{
    wavefront_reset();
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            {
                if ((i + j) % 7 == 0)
                    pause_us(50); /* a late predecessor */
                m[i][j] = m[i - 1][j] + m[i][j - 1];
            }
#pragma omp ordered depend(source)
        }
    CHECK(wavefront_right());

    /* Collapsed: a row's cells may run on different threads. */
    wavefront_reset();
#pragma omp parallel for collapse(2) ordered(2) schedule(dynamic, 3)
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            m[i][j] = m[i - 1][j] + m[i][j - 1];
#pragma omp ordered depend(source)
        }
    CHECK(wavefront_right());

    /* A decreasing loop, the sink an iteration earlier in it (a larger
     * index), and a sink outside the loop (waits for nothing). */
    long v[64] = {0};
#pragma omp parallel for ordered(1) schedule(dynamic)
    for (int k = 62; k >= 0; k -= 2) {
#pragma omp ordered depend(sink : k + 2)
        v[k] = k == 62 ? 1 : v[k + 2] + 1;
#pragma omp ordered depend(source)
    }
    CHECK(v[0] == 32 && v[62] == 1);

    /* Inside a team of one (nothing to wait for), and twice in a region. */
    long w[16] = {0};
#pragma omp parallel num_threads(1)
    {
#pragma omp for ordered(1)
        for (int k = 1; k < 16; k++) {
#pragma omp ordered depend(sink : k - 1)
            w[k] = w[k - 1] + 1;
#pragma omp ordered depend(source)
        }
    }
    CHECK(w[15] == 15);
    long u[2][100];
#pragma omp parallel
    for (int rep = 0; rep < 2; rep++) {
#pragma omp for ordered(1) schedule(static, 1) nowait
        for (int k = 0; k < 100; k++) {
#pragma omp ordered depend(sink : k - 1)
            u[rep][k] = k == 0 ? 0 : u[rep][k - 1] + 1;
#pragma omp ordered depend(source)
        }
    }
    CHECK(u[0][99] == 99 && u[1][99] == 99);
}

/* ---- task reductions --------------------------------------------------------------------------- */

/* A user-defined reduction: every copy combined must have been made by
 * its initializer (from the original's mark). */
typedef struct bag {
    long sum;
    long mark;
} bag_t;
static atomic_int unmarked;
static void bag_init(bag_t *priv, const bag_t *orig)
{
    priv->sum = 0;
    priv->mark = orig->mark;
}
static void bag_comb(bag_t *out, const bag_t *in)
{
    if (in->mark != out->mark)
        atomic_fetch_add(&unmarked, 1);
    out->sum += in->sum;
}
#pragma omp declare reduction(bag : bag_t : bag_comb(&omp_out, &omp_in))                          \
    initializer(bag_init(&omp_priv, &omp_orig))

static void task_reductions(void)
{
    enum { T = 200 };
    long s = 0, p = 1;
    atomic_int threads = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : s) task_reduction(* : p)
        {
            for (int k = 0; k < T; k++) {
#pragma omp task in_reduction(+ : s) in_reduction(* : p)
                {
                    s += k;
                    if (k % 40 == 0)
                        p *= 2;
                    if (k % 50 == 0)
                        pause_us(200); /* the others' tasks go to other threads */
                }
            }
        }
        CHECK(s == T * (T - 1) / 2 && p == 32);
        threads = omp_get_num_threads();
    }
    CHECK(threads == 4);

    /* Nested taskgroups: a task in the inner one adds to the outer's item. */
    long outer = 0, inner = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : outer)
    {
        for (int k = 0; k < 10; k++) {
#pragma omp taskgroup task_reduction(+ : inner)
            {
#pragma omp task in_reduction(+ : outer) in_reduction(+ : inner)
                {
                    outer += 2;
                    inner += 1;
                }
#pragma omp task in_reduction(+ : inner)
                inner += 1;
            }
        }
    }
    CHECK(outer == 20 && inner == 20);

    /* taskloop reduction, and a user-defined reduction's copies. */
    long t = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(+ : t) grainsize(7)
    for (int k = 0; k < 1000; k++)
        t += k;
    CHECK(t == 999 * 1000 / 2);

    bag_t b = {0, 77};
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(bag : b)
    for (int k = 0; k < 100; k++) {
#pragma omp task in_reduction(bag : b)
        b.sum += k;
    }
    CHECK(b.sum == 4950 && b.mark == 77 && atomic_load(&unmarked) == 0);

    /* reduction(task, ...) on a parallel and on a loop: tasks and the
     * threads' own contributions both count. */
    long r = 0;
#pragma omp parallel reduction(task, + : r)
    {
        r += 1000;
#pragma omp for
        for (int k = 0; k < 100; k++) {
#pragma omp task in_reduction(+ : r)
            r += k;
        }
    }
    CHECK(r == 4000 + 4950);
    long q = 0;
#pragma omp parallel
    {
#pragma omp for reduction(task, + : q) schedule(dynamic, 5)
        for (int k = 0; k < 100; k++) {
            q += 1;
#pragma omp task in_reduction(+ : q)
            {
                if (k % 10 == 0)
                    pause_us(2000); /* tasks still running as threads end the loop */
                q += k;
            }
        }
#pragma omp for reduction(task, + : q)
        for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : q)
            q += 1;
        }
    }
    CHECK(q == 100 + 4950 + 10);

    /* A task inside a region of one that the taskgroup's thread opened
     * adds to the enclosing reduction through its own copy. */
    long nest = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : nest)
    {
        for (int k = 0; k < 8; k++) {
#pragma omp task in_reduction(+ : nest)
            nest += 1;
        }
#pragma omp parallel num_threads(1)
        {
#pragma omp task in_reduction(+ : nest)
            nest += 100;
        }
    }
    CHECK(nest == 108);

    /* A team of one. */
    long one = 0;
#pragma omp parallel num_threads(1)
#pragma omp taskgroup task_reduction(+ : one)
    for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : one)
        one += k;
    }
    CHECK(one == 45);
}

/* ---- detached tasks ----------------------------------------------------------------------------- */

static void detached(void)
{
    /* A task's completion waits for its event, fulfilled by another task
     * long after the body ended: the taskwait sees both. */
    atomic_int done = 0, fulfilled = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev)
        atomic_store(&done, 1);
#pragma omp task
        {
            pause_us(20000);
            atomic_store(&fulfilled, 1);
            omp_fulfill_event(ev);
        }
#pragma omp taskwait
        CHECK(atomic_load(&done) == 1 && atomic_load(&fulfilled) == 1);
    }

    /* Its dependents wait for the event too. */
    int x = 0, seen = -1;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x)
        x = 1;
#pragma omp task depend(in : x)
        seen = atomic_load(&fulfilled);
#pragma omp task
        {
            pause_us(20000);
            atomic_store(&fulfilled, 2);
            omp_fulfill_event(ev);
        }
    }
    CHECK(x == 1 && seen == 2);

    /* Undeferred (if(0)): the encountering task waits at the task's end
     * for the event another thread fulfils (libgomp's rule, which
     * libspool-omp keeps for both compilers; libomp 14 goes on at the
     * body's end). */
    atomic_int late = 0;
    /* The event goes to the other thread under a lock of the runtime's,
     * whose order ThreadSanitizer sees (this file is not instrumented). */
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_event_handle_t given = (omp_event_handle_t)0;
    int handed = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_event_handle_t ev;
#pragma omp task detach(ev) if (0)
            {
                omp_set_lock(&lock);
                given = ev;
                handed = 1;
                omp_unset_lock(&lock);
            }
            CHECK(atomic_load(&late) == 1);
        } else {
            for (int have = 0; !have;) {
                omp_set_lock(&lock);
                have = handed;
                omp_unset_lock(&lock);
            }
            pause_us(20000);
            atomic_store(&late, 1);
            omp_fulfill_event(given);
        }
    }
    omp_destroy_lock(&lock);

    /* A taskgroup's end waits for the event as well. */
    atomic_int tg = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp taskgroup
        {
#pragma omp task detach(ev)
            (void)0;
#pragma omp task
            {
                pause_us(20000);
                atomic_store(&tg, 1);
                omp_fulfill_event(ev);
            }
        }
        CHECK(atomic_load(&tg) == 1);
    }
}

/* A proxy task (libomp's form of a target task): it completes when a
 * thread of the program's says so, here one it starts in the body. */
typedef struct proxy_task {
    void *shareds;
    int (*routine)(int, struct proxy_task *);
    int part_id;
} proxy_task_t;
proxy_task_t *__kmpc_omp_task_alloc(void *loc, int gtid, int flags, size_t size, size_t shareds,
                                    int (*entry)(int, proxy_task_t *));
int __kmpc_omp_task(void *loc, int gtid, proxy_task_t *task);
void __kmpc_proxy_task_completed_ooo(proxy_task_t *task);
int __kmpc_global_thread_num(void *loc);

static atomic_int proxy_done;
static pthread_t proxy_thread;

static void *proxy_completer(void *task)
{
    pause_us(20000);
    atomic_store(&proxy_done, 1);
    __kmpc_proxy_task_completed_ooo(task);
    return NULL;
}

static int proxy_body(int gtid, proxy_task_t *task)
{
    (void)gtid;
    pthread_create(&proxy_thread, NULL, proxy_completer, task);
    return 0;
}

static void proxy(void)
{
#pragma omp parallel
#pragma omp single
    {
        int gtid = __kmpc_global_thread_num(NULL);
        proxy_task_t *t = __kmpc_omp_task_alloc(NULL, gtid, 0x11, sizeof *t, 0, proxy_body);
        __kmpc_omp_task(NULL, gtid, t);
#pragma omp taskwait
        CHECK(atomic_load(&proxy_done) == 1);
    }
    pthread_join(proxy_thread, NULL);
}

int main(void)
{
    if (!check_threads())
        return 2;
    run_part("test_doacross", doacross);
    run_part("test_task_reductions", task_reductions);
    run_part("test_detached", detached);
    run_part("test_proxy", proxy);
    return check_end();
}
