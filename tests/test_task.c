/*
 * Tasks with dependencies (spool_task_*): dependency orders on chains,
 * diamonds and random DAGs, cycles refused, cancellation (before and after
 * the start, transitively), waiting, a pool destroyed with tasks pending,
 * fault injection at every allocation, and fork (completion queues:
 * test_completions.c).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "platform/test_hooks.h"
#include "test_util.h"

/* ---- a graph whose tasks record when they ran ------------------------------ */

typedef struct node {
    atomic_long start, end; /* the clock's ticks at start and end; 0 before */
    atomic_int runs;
    spool_task_t *task;
} node_t;

static atomic_long clock_ticks; /* a logical clock shared by every task */

static void node_run(void *arg)
{
    node_t *n = arg;
    atomic_store(&n->start, atomic_fetch_add(&clock_ticks, 1) + 1);
    atomic_fetch_add(&n->runs, 1);
    atomic_store(&n->end, atomic_fetch_add(&clock_ticks, 1) + 1);
}

typedef struct graph {
    size_t n;
    node_t *nodes;
    size_t nedges;
    size_t (*edges)[2];
} graph_t;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random DAG on n nodes: each node gets up to 3 predecessors among the
 * nodes before it (so no cycle), numbered in a shuffled order so that
 * creation order is not topological. */
static void graph_random(graph_t *g, size_t n, uint64_t seed)
{
    g->n = n;
    g->nodes = calloc(n, sizeof *g->nodes);
    g->edges = calloc(3 * n, sizeof *g->edges);
    assert_non_null(g->nodes);
    assert_non_null(g->edges);
    size_t *perm = malloc(n * sizeof *perm);
    assert_non_null(perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t s = seed | 1;
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_next(&s) % i;
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    g->nedges = 0;
    for (size_t i = 1; i < n; i++) {
        unsigned k = (unsigned)(rng_next(&s) % 4);
        for (unsigned e = 0; e < k; e++) {
            size_t from = rng_next(&s) % i;
            g->edges[g->nedges][0] = perm[from];
            g->edges[g->nedges][1] = perm[i];
            g->nedges++;
        }
    }
    free(perm);
}

static void graph_free(graph_t *g)
{
    free(g->nodes);
    free(g->edges);
}

/* Builds the graph's tasks in pool (NULL: the global pool), submits them
 * in creation order, waits for all, and checks every edge and every task
 * run exactly once. */
static void graph_run_check(graph_t *g, spool_pool_t *pool)
{
    for (size_t i = 0; i < g->n; i++) {
        atomic_init(&g->nodes[i].start, 0);
        atomic_init(&g->nodes[i].end, 0);
        atomic_init(&g->nodes[i].runs, 0);
        assert_int_equal(spool_task_create(pool, node_run, &g->nodes[i], &g->nodes[i].task), 0);
    }
    for (size_t e = 0; e < g->nedges; e++)
        assert_int_equal(spool_task_precede(g->nodes[g->edges[e][0]].task,
                                            g->nodes[g->edges[e][1]].task),
                         0);
    for (size_t i = 0; i < g->n; i++)
        assert_int_equal(spool_task_submit(g->nodes[i].task), 0);
    for (size_t i = 0; i < g->n; i++) {
        assert_int_equal(spool_task_wait(g->nodes[i].task), 0);
        assert_int_equal(spool_task_done(g->nodes[i].task), 1);
        assert_int_equal(spool_task_cancelled(g->nodes[i].task), 0);
        assert_int_equal(atomic_load(&g->nodes[i].runs), 1);
    }
    for (size_t e = 0; e < g->nedges; e++) {
        const node_t *a = &g->nodes[g->edges[e][0]], *b = &g->nodes[g->edges[e][1]];
        assert_true(atomic_load(&a->end) < atomic_load(&b->start));
    }
    for (size_t i = 0; i < g->n; i++)
        spool_task_release(g->nodes[i].task);
}

static void test_random_dags_in_pools(void **state)
{
    (void)state;
    unsigned long rounds = test_iters("SPOOL_TEST_DAG_ROUNDS", 3);
    const unsigned sizes[] = {1, 2, 3, 7};
    for (size_t p = 0; p <= sizeof sizes / sizeof *sizes; p++) {
        spool_pool_t *pool = NULL;
        if (p < sizeof sizes / sizeof *sizes) {
            spool_config_t config = {.num_threads = sizes[p]};
            assert_int_equal(spool_pool_create(&config, &pool), 0);
        } /* else the global pool */
        for (unsigned long r = 0; r < rounds; r++) {
            graph_t g;
            size_t n = r == 0 ? 10000 : 1 + (size_t)(r * 7919 % 3000);
            graph_random(&g, n, 0x9E3779B97F4A7C15u * (r + 1) + p);
            graph_run_check(&g, pool);
            graph_free(&g);
        }
        if (pool != NULL)
            assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

static void test_chain_and_diamond(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    /* A chain of 20,000: each task starts after the one before ended. */
    graph_t g = {.n = 20000};
    g.nodes = calloc(g.n, sizeof *g.nodes);
    g.edges = calloc(g.n, sizeof *g.edges);
    for (size_t i = 1; i < g.n; i++) {
        g.edges[g.nedges][0] = i - 1;
        g.edges[g.nedges][1] = i;
        g.nedges++;
    }
    graph_run_check(&g, pool);
    graph_free(&g);
    /* A diamond: 0 -> {1, 2} -> 3. */
    size_t diamond[4][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    graph_t d = {.n = 4, .nedges = 4};
    d.nodes = calloc(4, sizeof *d.nodes);
    d.edges = calloc(4, sizeof *d.edges);
    memcpy(d.edges, diamond, sizeof diamond);
    graph_run_check(&d, pool);
    graph_free(&d);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void nothing(void *arg)
{
    (void)arg;
}

static void test_cycles_and_bad_edges(void **state)
{
    (void)state;
    spool_task_t *a, *b, *c;
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &a), 0);
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &b), 0);
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &c), 0);
    assert_int_equal(spool_task_precede(a, a), EINVAL);
    assert_int_equal(spool_task_precede(NULL, a), EINVAL);
    assert_int_equal(spool_task_precede(a, NULL), EINVAL);
    assert_int_equal(spool_task_precede(a, b), 0);
    assert_int_equal(spool_task_precede(b, a), EINVAL); /* a two-cycle */
    assert_int_equal(spool_task_precede(b, c), 0);
    assert_int_equal(spool_task_precede(c, a), EINVAL); /* a -> b -> c -> a */
    assert_int_equal(spool_task_precede(a, c), 0);      /* a shortcut is fine */
    assert_int_equal(spool_task_submit(c), 0);
    assert_int_equal(spool_task_precede(b, c), EINVAL); /* c submitted */
    assert_int_equal(spool_task_submit(c), EINVAL);     /* twice */
    assert_int_equal(spool_task_submit(b), 0);
    assert_int_equal(spool_task_submit(a), 0);
    assert_int_equal(spool_task_wait(c), 0);
    assert_true(spool_task_done(a) && spool_task_done(b) && spool_task_done(c));
    spool_task_release(a);
    spool_task_release(b);
    spool_task_release(c);
    assert_int_equal(spool_task_create(NULL, NULL, NULL, &a), EINVAL);
    assert_int_equal(spool_task_create(NULL, nothing, NULL, NULL), EINVAL);
    assert_int_equal(spool_task_submit(NULL), EINVAL);
    assert_int_equal(spool_task_wait(NULL), EINVAL);
    assert_int_equal(spool_task_cancel(NULL), EINVAL);
    assert_int_equal(spool_task_done(NULL), 0);
    assert_int_equal(spool_task_cancelled(NULL), 0);
    spool_task_release(NULL);
}

static void test_precede_on_finished_and_cancelled(void **state)
{
    (void)state;
    node_t na = {0}, nb = {0}, nc = {0};
    spool_task_t *a, *b, *c, *d;
    assert_int_equal(spool_task_create(NULL, node_run, &na, &a), 0);
    assert_int_equal(spool_task_submit(a), 0);
    assert_int_equal(spool_task_wait(a), 0);
    assert_int_equal(spool_task_create(NULL, node_run, &nb, &b), 0);
    assert_int_equal(spool_task_precede(a, b), 0); /* a has run: adds nothing */
    assert_int_equal(spool_task_submit(b), 0);
    assert_int_equal(spool_task_wait(b), 0);
    assert_int_equal(atomic_load(&nb.runs), 1);
    /* A cancelled predecessor cancels its new successor. */
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &c), 0);
    assert_int_equal(spool_task_cancel(c), 0);
    assert_int_equal(spool_task_cancel(c), 0); /* twice is fine */
    assert_int_equal(spool_task_create(NULL, node_run, &nc, &d), 0);
    assert_int_equal(spool_task_precede(c, d), 0);
    assert_int_equal(spool_task_cancelled(d), 1);
    assert_int_equal(spool_task_submit(d), EINVAL);
    assert_int_equal(spool_task_wait(d), 0);
    assert_int_equal(atomic_load(&nc.runs), 0);
    spool_task_release(a);
    spool_task_release(b);
    spool_task_release(c);
    spool_task_release(d);
}

/* ---- cancellation -------------------------------------------------------- */

typedef struct gate {
    atomic_int started, open;
} gate_t;

static void gated(void *arg)
{
    gate_t *g = arg;
    atomic_store(&g->started, 1);
    while (!atomic_load(&g->open))
        test_sleep_ms(1);
}

static void test_cancel_before_and_after_start(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    spool_completions_t *cq;
    assert_int_equal(spool_completions_create(&cq), 0);
    /* g runs and blocks; a waits for g, b and c for a; cancelling a
     * cancels b and c, and each posts its tag once. */
    gate_t gate = {0};
    node_t na = {0}, nb = {0}, nc = {0};
    spool_task_t *g, *a, *b, *c;
    assert_int_equal(spool_task_create(pool, gated, &gate, &g), 0);
    assert_int_equal(spool_task_create(pool, node_run, &na, &a), 0);
    assert_int_equal(spool_task_create(pool, node_run, &nb, &b), 0);
    assert_int_equal(spool_task_create(pool, node_run, &nc, &c), 0);
    assert_int_equal(spool_task_precede(g, a), 0);
    assert_int_equal(spool_task_precede(a, b), 0);
    assert_int_equal(spool_task_precede(b, c), 0);
    assert_int_equal(spool_task_precede(a, c), 0);
    void *tags[8];
    assert_int_equal(spool_task_notify(g, cq, (void *)1), 0);
    assert_int_equal(spool_task_notify(a, cq, (void *)2), 0);
    assert_int_equal(spool_task_notify(b, cq, (void *)3), 0);
    assert_int_equal(spool_task_notify(c, cq, (void *)4), 0);
    assert_int_equal(spool_task_notify(c, cq, (void *)5), EALREADY);
    spool_task_t *all[] = {g, a, b, c};
    for (int i = 0; i < 4; i++)
        assert_int_equal(spool_task_submit(all[i]), 0);
    assert_int_equal(spool_task_notify(g, cq, (void *)6), EINVAL); /* submitted */
    while (!atomic_load(&gate.started))
        test_sleep_ms(1);
    assert_int_equal(spool_task_cancel(g), EBUSY); /* running */
    assert_int_equal(spool_task_cancel(a), 0);
    assert_int_equal(spool_task_cancelled(b), 1);
    assert_int_equal(spool_task_cancelled(c), 1);
    assert_int_equal(spool_completions_destroy(cq), EBUSY); /* g has not posted */
    size_t got = spool_completions_take(cq, tags, 8);
    assert_int_equal(got, 3);
    atomic_store(&gate.open, 1);
    assert_int_equal(spool_task_wait(g), 0);
    assert_int_equal(spool_task_cancel(g), EBUSY); /* finished */
    assert_int_equal(spool_completions_wait(cq, tags + got, 8 - got, -1), 1);
    uintptr_t sum = 0;
    for (int i = 0; i < 4; i++)
        sum += (uintptr_t)tags[i];
    assert_int_equal(sum, 1 + 2 + 3 + 4);
    assert_int_equal(atomic_load(&na.runs) + atomic_load(&nb.runs) + atomic_load(&nc.runs), 0);
    for (int i = 0; i < 4; i++)
        spool_task_release(all[i]);
    assert_int_equal(spool_completions_destroy(cq), 0);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

static void test_release_before_submit_cancels(void **state)
{
    (void)state;
    spool_completions_t *cq;
    assert_int_equal(spool_completions_create(&cq), 0);
    spool_task_t *t, *u;
    node_t nu = {0};
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &t), 0);
    assert_int_equal(spool_task_create(NULL, node_run, &nu, &u), 0);
    assert_int_equal(spool_task_precede(t, u), 0);
    assert_int_equal(spool_task_notify(t, cq, &nu), 0);
    assert_int_equal(spool_task_submit(u), 0); /* waits for t */
    assert_int_equal(spool_task_wait(t), EDEADLK);
    spool_task_release(t); /* never submitted: cancelled, u too */
    void *tag = NULL;
    assert_int_equal(spool_completions_take(cq, &tag, 1), 1);
    assert_ptr_equal(tag, &nu);
    assert_int_equal(spool_task_wait(u), 0);
    assert_int_equal(spool_task_cancelled(u), 1);
    assert_int_equal(atomic_load(&nu.runs), 0);
    spool_task_release(u);
    assert_int_equal(spool_completions_destroy(cq), 0);
}

/* ---- pools, waits, destroy -------------------------------------------------- */

static void wait_inside(void *arg)
{
    node_t *nodes = arg;
    spool_task_t *t[64];
    for (int i = 0; i < 64; i++) {
        assert_int_equal(spool_task_create(NULL, node_run, &nodes[i], &t[i]), 0);
        if (i > 0)
            assert_int_equal(spool_task_precede(t[i - 1], t[i]), 0);
    }
    for (int i = 63; i >= 0; i--)
        assert_int_equal(spool_task_submit(t[i]), 0);
    assert_int_equal(spool_task_wait(t[63]), 0); /* on a worker: runs them meanwhile */
    for (int i = 0; i < 64; i++) {
        assert_int_equal(atomic_load(&nodes[i].runs), 1);
        spool_task_release(t[i]);
    }
}

static void test_wait_on_a_worker(void **state)
{
    (void)state;
    for (unsigned threads = 1; threads <= 3; threads++) {
        spool_config_t config = {.num_threads = threads};
        spool_pool_t *pool;
        assert_int_equal(spool_pool_create(&config, &pool), 0);
        node_t nodes[64] = {0};
        assert_int_equal(spool_pool_install(pool, wait_inside, nodes), 0);
        assert_int_equal(spool_pool_destroy(pool), 0);
    }
}

static void test_destroy_waits_for_submitted_tasks(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    enum { N = 2000 };
    node_t *nodes = calloc(N, sizeof *nodes);
    spool_task_t *t[N];
    spool_task_t *never;
    node_t unsubmitted = {0};
    for (int i = 0; i < N; i++) {
        assert_int_equal(spool_task_create(pool, node_run, &nodes[i], &t[i]), 0);
        if (i > 0)
            assert_int_equal(spool_task_precede(t[i - 1], t[i]), 0);
    }
    assert_int_equal(spool_task_create(pool, node_run, &unsubmitted, &never), 0);
    for (int i = N - 1; i >= 0; i--)
        assert_int_equal(spool_task_submit(t[i]), 0);
    assert_int_equal(spool_pool_destroy(pool), 0); /* waits for the chain */
    for (int i = 0; i < N; i++) {
        assert_int_equal(atomic_load(&nodes[i].runs), 1);
        assert_int_equal(spool_task_done(t[i]), 1);
        spool_task_release(t[i]);
    }
    /* Created, never submitted: the caller's; after destroy, submit is
     * refused and the task is cancelled. */
    assert_int_equal(spool_task_submit(never), ECANCELED);
    assert_int_equal(spool_task_cancelled(never), 1);
    spool_task_release(never);
    assert_int_equal(atomic_load(&unsubmitted.runs), 0);
    free(nodes);
}

/* ---- fault injection ------------------------------------------------------ */

/* One scenario of every allocating call; with the nth allocation failing,
 * each call either succeeds or returns ENOMEM, and whatever was submitted
 * runs exactly once, whatever was notified is posted exactly once. */
static int alloc_scenario(void)
{
    spool_completions_t *cq = NULL;
    int err = spool_completions_create(&cq);
    if (err != 0) {
        assert_int_equal(err, ENOMEM);
        return 1;
    }
    enum { N = 12 };
    node_t nodes[N] = {0};
    spool_task_t *t[N] = {0};
    bool submitted[N] = {0}, notified[N] = {0};
    int failures = 0;
    for (int i = 0; i < N; i++) {
        err = spool_task_create(NULL, node_run, &nodes[i], &t[i]);
        if (err != 0) {
            assert_int_equal(err, ENOMEM);
            failures++;
            t[i] = NULL;
            continue;
        }
        err = spool_task_notify(t[i], cq, &nodes[i]);
        assert_true(err == 0 || err == ENOMEM);
        notified[i] = err == 0;
        failures += err != 0;
    }
    for (int i = 1; i < N; i++) {
        for (int j = 0; j < i; j += 1 + i % 3) {
            if (t[i] == NULL || t[j] == NULL)
                continue;
            err = spool_task_precede(t[j], t[i]);
            assert_true(err == 0 || err == ENOMEM);
            failures += err != 0;
        }
    }
    for (int i = 0; i < N; i++) {
        if (t[i] == NULL)
            continue;
        assert_int_equal(spool_task_submit(t[i]), 0);
        submitted[i] = true;
    }
    for (int i = 0; i < N; i++) {
        if (t[i] == NULL)
            continue;
        assert_int_equal(spool_task_wait(t[i]), 0);
        assert_int_equal(atomic_load(&nodes[i].runs), submitted[i] ? 1 : 0);
        spool_task_release(t[i]);
    }
    int posted = 0;
    void *tags[N];
    size_t n;
    while ((n = spool_completions_take(cq, tags, N)) > 0)
        posted += (int)n;
    int expected = 0;
    for (int i = 0; i < N; i++)
        expected += notified[i];
    assert_int_equal(posted, expected);
    assert_int_equal(spool_completions_destroy(cq), 0);
    return failures;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    spool_task_t *warm;
    assert_int_equal(spool_task_create(NULL, nothing, NULL, &warm), 0); /* the global pool */
    spool_task_release(warm);
    spool__test_fail_alloc(0);
    assert_int_equal(alloc_scenario(), 0);
    int sites = spool__test_fail_alloc(0);
    assert_true(sites > 13); /* the queue, 12 tasks, a successor list that spills */
    for (int nth = 1; nth <= sites; nth++) {
        spool__test_fail_alloc(nth);
        int failures = alloc_scenario();
        int counted = spool__test_fail_alloc(0);
        /* The nth allocation failed and was reported, unless the scenario
         * took a different path before it (fewer allocations). */
        if (nth <= counted)
            assert_true(failures >= 1);
    }
}

/* ---- fork ------------------------------------------------------------------- */

static void test_fork_with_tasks_outstanding(void **state)
{
    (void)state;
    spool_config_t config = {.num_threads = 2};
    spool_pool_t *pool;
    assert_int_equal(spool_pool_create(&config, &pool), 0);
    gate_t gate = {0};
    spool_task_t *busy;
    assert_int_equal(spool_task_create(pool, gated, &gate, &busy), 0);
    assert_int_equal(spool_task_submit(busy), 0);
    while (!atomic_load(&gate.started))
        test_sleep_ms(1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        spool_task_t *t;
        int code = 0;
        if (spool_task_create(pool, nothing, NULL, &t) != ENOTRECOVERABLE)
            code = 1;
        node_t n = {0};
        if (code == 0 && spool_task_create(NULL, node_run, &n, &t) != 0)
            code = 2;
        if (code == 0 && (spool_task_submit(t) != 0 || spool_task_wait(t) != 0 ||
                          atomic_load(&n.runs) != 1))
            code = 3;
        _exit(code);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    atomic_store(&gate.open, 1);
    assert_int_equal(spool_task_wait(busy), 0);
    spool_task_release(busy);
    assert_int_equal(spool_pool_destroy(pool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_dags_in_pools),
        cmocka_unit_test(test_chain_and_diamond),
        cmocka_unit_test(test_cycles_and_bad_edges),
        cmocka_unit_test(test_precede_on_finished_and_cancelled),
        cmocka_unit_test(test_cancel_before_and_after_start),
        cmocka_unit_test(test_release_before_submit_cancels),
        cmocka_unit_test(test_wait_on_a_worker),
        cmocka_unit_test(test_destroy_waits_for_submitted_tasks),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_fork_with_tasks_outstanding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
