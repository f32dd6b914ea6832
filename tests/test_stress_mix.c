/* Stress (label "stress"): randomized mixes of join, LIFO and FIFO scopes,
 * in-place scopes, detached spawns, joins (spool_join, spool_join_inline, and
 * spool_fork_inline with spool_sync_inline), cross-pool installs, parallel loops,
 * reductions (adaptive and fixed), broadcasts (blocking and detached),
 * task graphs (random edges among a node's children), isolation regions,
 * cancelled scopes (a dropped child counts as accounted for) and searches,
 * nested up to
 * depth 30, on pools of 1, 2, 8 and 64 threads (on a 2-core machine); and
 * 8 outside threads submitting such trees at once while pools are created
 * and destroyed.  Every node checks that it ran exactly once; totals are
 * checked exactly.  (Outside threads without the mix: test_stress_outside.)
 *
 * Counts (environment): SPOOL_TEST_MIX_ROUNDS; SPOOL_TEST_SCALE multiplies
 * it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "spool.h"
#include "spool_inline.h"
#include "test_util.h"

enum { NUM_POOLS = 4, MAX_DEPTH = 30, MAX_CHILDREN = 4 };

static spool_pool_t *pools[NUM_POOLS];
static const unsigned pool_sizes[NUM_POOLS] = {1, 2, 8, 64};

static atomic_long created, executed, double_runs, budget;

/* A worker that waits runs other jobs on its own stack, so nodes of other
 * trees (and, through installs, of other pools) pile up on it: the stack a
 * worker needs is not bounded by MAX_DEPTH.  Under AddressSanitizer this
 * test has needed more than 2 MiB on every run and, now and then, more than
 * the default 8 MiB, so its pools get large stacks (address space only: a
 * page costs memory once touched), and the test reports the deepest use. */
enum { MIX_STACK_SIZE = 64u << 20 };
static _Thread_local uintptr_t first_node_frame;
static atomic_uintptr_t deepest_stack;

static void note_stack_depth(void)
{
    char here;
    uintptr_t at = (uintptr_t)&here;
    if (first_node_frame == 0 || at > first_node_frame)
        first_node_frame = at; /* the shallowest node seen on this thread */
    uintptr_t used = first_node_frame - at, seen = atomic_load(&deepest_stack);
    while (used > seen && !atomic_compare_exchange_weak(&deepest_stack, &seen, used))
        ;
}

typedef struct node {
    uint64_t seed;
    unsigned depth;
    atomic_int runs;
    bool detached; /* freed by its own run */
} node_t;

/* Aborts with a message if a spool call failed (inside jobs, where cmocka's
 * assertions cannot be used). */
static void must(int err, const char *what)
{
    if (err != 0) {
        fprintf(stderr, "stress: %s failed: %d (%s)\n", what, err, spool_strerror(err));
        abort();
    }
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static void node_init(node_t *n, uint64_t seed, unsigned depth, bool detached)
{
    n->seed = seed;
    n->depth = depth;
    n->detached = detached;
    atomic_init(&n->runs, 0);
    atomic_fetch_add(&created, 1);
}

static void run_node(void *arg);

static void check_once(node_t *children, int k)
{
    for (int i = 0; i < k; i++)
        if (atomic_load(&children[i].runs) != 1)
            atomic_fetch_add(&double_runs, 1); /* lost or run twice */
}

static void scope_child(spool_scope_t *s, void *arg)
{
    (void)s;
    run_node(arg);
}

typedef struct scope_frame {
    node_t children[MAX_CHILDREN];
    int k;
} scope_frame_t;

static void spawn_children(spool_scope_t *s, void *arg)
{
    scope_frame_t *f = arg;
    for (int i = 0; i < f->k; i++)
        must(spool_scope_spawn(s, scope_child, &f->children[i]), "spool_scope_spawn");
}

static void loop_children(void *ctx, size_t begin, size_t end)
{
    scope_frame_t *f = ctx;
    for (size_t i = begin; i < end; i++)
        run_node(&f->children[i]);
}

static void count_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(long *)acc = 0;
}

static void count_fold(void *ctx, void *acc, size_t begin, size_t end)
{
    loop_children(ctx, begin, end);
    *(long *)acc += (long)(end - begin);
}

static void count_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(long *)left += *(const long *)right;
}

static const spool_reducer_t count_reducer = {sizeof(long), count_identity, count_fold,
                                              count_combine};

static void broadcast_child(void *ctx, unsigned index, unsigned n)
{
    (void)n;
    if (index == 0)
        run_node(ctx);
}

static void isolated_children(void *arg)
{
    scope_frame_t *f = arg;
    spool_for(0, (size_t)f->k, NULL, loop_children, f);
}

/* The children spawned, then the scope cancelled: those not yet started
 * are dropped (and accounted for by the spawner).  They are leaves: work
 * nested in a cancelled scope is cancelled too, which the rest of the mix
 * does not expect. */
static void cancelled_child(spool_scope_t *s, void *arg)
{
    node_t *n = arg;
    (void)s;
    if (atomic_fetch_add(&n->runs, 1) != 0)
        atomic_fetch_add(&double_runs, 1);
    atomic_fetch_add(&executed, 1);
}

static void spawn_then_cancel(spool_scope_t *s, void *arg)
{
    scope_frame_t *f = arg;
    for (int i = 0; i < f->k; i++)
        must(spool_scope_spawn(s, cancelled_child, &f->children[i]), "spool_scope_spawn");
    must(spool_scope_cancel(s), "spool_scope_cancel");
    if (spool_scope_spawn(s, cancelled_child, &f->children[0]) != ECANCELED)
        atomic_fetch_add(&double_runs, 1);
}

/* A find that runs the children of its range and never matches. */
static size_t find_children(void *ctx, size_t b, size_t e)
{
    scope_frame_t *f = ctx;
    for (size_t i = b; i < e; i++)
        run_node(&f->children[i]);
    return e;
}

static void run_node(void *arg)
{
    node_t *n = arg;
    note_stack_depth();
    if (atomic_fetch_add(&n->runs, 1) != 0)
        atomic_fetch_add(&double_runs, 1);
    atomic_fetch_add(&executed, 1);
    uint64_t r = mix(n->seed);
    unsigned depth = n->depth;
    bool detached = n->detached;
    if (detached)
        free(n); /* nobody else looks at a detached node */
    if (depth >= MAX_DEPTH || atomic_fetch_sub(&budget, 1) <= 0)
        return;
    int k = 1 + (int)((r >> 8) % MAX_CHILDREN);
    switch (r % 10) {
    case 0: { /* join: the library's, the inlined one, or a fork and a sync */
        node_t a, b;
        node_init(&a, r + 1, depth + 1, false);
        node_init(&b, r + 2, depth + 1, false);
        if ((r >> 24) % 3 == 0) {
            spool_join_inline(run_node, &a, run_node, &b);
        } else if ((r >> 24) % 3 == 1) {
            spool_join(run_node, &a, run_node, &b);
        } else {
            spool_fork_t fork_b;
            spool_fork_inline(&fork_b, run_node, &b);
            run_node(&a);
            if (spool_sync_inline(&fork_b))
                run_node(&b);
        }
        node_t both[2] = {a, b};
        check_once(both, 2);
        break;
    }
    case 1:   /* LIFO scope */
    case 2:   /* FIFO scope */
    case 3: { /* in-place scope */
        scope_frame_t f;
        f.k = k;
        for (int i = 0; i < k; i++)
            node_init(&f.children[i], r + 10 + (uint64_t)i, depth + 1, false);
        if (r % 10 == 1)
            spool_scope(spawn_children, &f);
        else if (r % 10 == 2)
            spool_scope_fifo(spawn_children, &f);
        else if ((r >> 20) & 1)
            spool_in_place_scope_fifo(spawn_children, &f);
        else
            spool_in_place_scope(spawn_children, &f);
        check_once(f.children, k);
        break;
    }
    case 4: { /* detached spawns, LIFO and FIFO; counted at the end */
        for (int i = 0; i < k; i++) {
            node_t *c = malloc(sizeof *c);
            if (c == NULL)
                abort();
            node_init(c, r + 20 + (uint64_t)i, depth + 1, true);
            if (((r >> 12) + (uint64_t)i) & 1)
                must(spool_spawn_fifo(run_node, c), "spool_spawn_fifo");
            else
                must(spool_spawn(run_node, c), "spool_spawn");
        }
        break;
    }
    case 7: { /* a loop over the children */
        scope_frame_t f;
        f.k = k;
        for (int i = 0; i < k; i++)
            node_init(&f.children[i], r + 40 + (uint64_t)i, depth + 1, false);
        spool_for_opts_t o = {(r >> 24) % 3, (r >> 26) % 3, (unsigned)(r >> 28) & 1};
        spool_for(0, (size_t)k, &o, loop_children, &f);
        check_once(f.children, k);
        break;
    }
    case 8: { /* a reduction that runs the children and counts them */
        scope_frame_t f;
        f.k = k;
        for (int i = 0; i < k; i++)
            node_init(&f.children[i], r + 50 + (uint64_t)i, depth + 1, false);
        spool_for_opts_t o = {0, 1, (unsigned)(r >> 28) & 1};
        long count = -1;
        spool_reduce(0, (size_t)k, &o, &count_reducer, &f, &count);
        if (count != k)
            atomic_fetch_add(&double_runs, 1);
        check_once(f.children, k);
        break;
    }
    case 9: { /* a broadcast: worker 0 runs the child */
        if ((r >> 24) & 1) {
            node_t c;
            node_init(&c, r + 60, depth + 1, false);
            must(spool_broadcast(broadcast_child, &c), "spool_broadcast");
            check_once(&c, 1);
        } else {
            node_t *c = malloc(sizeof *c);
            if (c == NULL)
                abort();
            node_init(c, r + 60, depth + 1, true); /* freed by its own run */
            must(spool_spawn_broadcast(broadcast_child, c, NULL), "spool_spawn_broadcast");
        }
        break;
    }
    default: {
        if (((r >> 40) & 7) == 1) { /* the children in an isolation region */
            scope_frame_t f;
            f.k = k;
            for (int i = 0; i < k; i++)
                node_init(&f.children[i], r + 80 + (uint64_t)i, depth + 1, false);
            spool_isolate(isolated_children, &f);
            check_once(f.children, k);
            break;
        }
        if (((r >> 40) & 7) == 2) { /* a scope cancelled by its body after the children */
            scope_frame_t f;
            f.k = k;
            for (int i = 0; i < k; i++)
                node_init(&f.children[i], r + 90 + (uint64_t)i, depth + 1, false);
            spool_scope(spawn_then_cancel, &f);
            for (int i = 0; i < k; i++) { /* each ran once, or was dropped */
                int runs = atomic_load(&f.children[i].runs);
                if (runs > 1)
                    atomic_fetch_add(&double_runs, 1);
                else if (runs == 0)
                    atomic_fetch_add(&executed, 1); /* dropped: accounted for */
            }
            break;
        }
        if (((r >> 40) & 7) == 3) { /* a search: the children run as its find */
            scope_frame_t f;
            f.k = k;
            for (int i = 0; i < k; i++)
                node_init(&f.children[i], r + 100 + (uint64_t)i, depth + 1, false);
            size_t got = spool_find_first(0, (size_t)k, NULL, find_children, &f);
            if (got != (size_t)k)
                atomic_fetch_add(&double_runs, 1);
            check_once(f.children, k);
            break;
        }
        if ((r >> 30) & 1) { /* a task graph of the children, waited for */
            node_t children[MAX_CHILDREN];
            spool_task_t *t[MAX_CHILDREN];
            for (int i = 0; i < k; i++) {
                node_init(&children[i], r + 70 + (uint64_t)i, depth + 1, false);
                must(spool_task_create(NULL, run_node, &children[i], &t[i]), "spool_task_create");
                for (int j = 0; j < i; j++)
                    if ((r >> (32 + i * 4 + j)) & 1)
                        must(spool_task_precede(t[j], t[i]), "spool_task_precede");
            }
            for (int i = k - 1; i >= 0; i--)
                must(spool_task_submit(t[i]), "spool_task_submit");
            for (int i = 0; i < k; i++) {
                must(spool_task_wait(t[i]), "spool_task_wait");
                spool_task_release(t[i]);
            }
            check_once(children, k);
            break;
        }
        /* install into a random pool (maybe this one) */
        node_t c;
        node_init(&c, r + 30, depth + 1, false);
        must(spool_pool_install(pools[(r >> 16) % NUM_POOLS], run_node, &c),
             "spool_pool_install");
        check_once(&c, 1);
        break;
    }
    }
}

static void run_root(spool_pool_t *pool, uint64_t seed, long nodes)
{
    atomic_store(&budget, nodes);
    node_t root;
    node_init(&root, seed, 0, false);
    if (spool_pool_install(pool, run_node, &root) != 0)
        abort();
    check_once(&root, 1);
}

static void create_pools(void)
{
    for (int i = 0; i < NUM_POOLS; i++) {
        spool_config_t config = {.num_threads = pool_sizes[i], .stack_size = MIX_STACK_SIZE};
        assert_int_equal(spool_pool_create(&config, &pools[i]), 0);
    }
}

/* Detached nodes may install into any pool, so no pool may be destroyed
 * while one still runs (that would be a use after destroy): wait until every
 * created node has run, then destroy. */
static void destroy_pools_and_check(void)
{
    for (int ms = 0; ms < 120000 && atomic_load(&executed) != atomic_load(&created); ms++)
        test_sleep_ms(1);
    for (int i = 0; i < NUM_POOLS; i++)
        assert_int_equal(spool_pool_destroy(pools[i]), 0);
    print_message("nodes: %ld created, %ld executed, %ld lost or repeated; deepest stack %lu KiB\n",
                  atomic_load(&created), atomic_load(&executed), atomic_load(&double_runs),
                  (unsigned long)(atomic_load(&deepest_stack) >> 10));
    atomic_store(&deepest_stack, 0);
    assert_int_equal(atomic_load(&double_runs), 0);
    assert_int_equal(atomic_load(&created), atomic_load(&executed));
}

static void test_random_mix(void **state)
{
    (void)state;
    atomic_store(&created, 0);
    atomic_store(&executed, 0);
    atomic_store(&double_runs, 0);
    create_pools();
    unsigned long rounds = test_iters("SPOOL_TEST_MIX_ROUNDS", 1000);
    for (unsigned long r = 0; r < rounds; r++)
        run_root(pools[r % NUM_POOLS], mix(r + 1), 300);
    destroy_pools_and_check();
}

/* ---- outside submitters with pool churn --------------------------------- */

enum { SUBMITTERS = 8 };

static unsigned long submit_rounds;

static void *submitter(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    for (unsigned long r = 0; r < submit_rounds; r++) {
        /* The shared budget is a soft cap here: several roots draw on it. */
        node_t root;
        node_init(&root, mix(seed + r), 0, false);
        if (spool_pool_install(pools[(seed + r) % NUM_POOLS], run_node, &root) != 0)
            abort();
        check_once(&root, 1);
        if (atomic_load(&budget) < 1000)
            atomic_fetch_add(&budget, 1000);
    }
    return NULL;
}

static void *churner(void *arg)
{
    (void)arg;
    for (unsigned long r = 0; r < submit_rounds / 2 + 1; r++) {
        spool_config_t config = {.num_threads = 1 + (unsigned)(r % 4)};
        spool_pool_t *p;
        if (spool_pool_create(&config, &p) != 0)
            abort();
        fib_task_t t = {14, 0};
        if (spool_pool_install(p, fib_join, &t) != 0 || t.result != fib_expected(14))
            abort();
        if (spool_pool_destroy(p) != 0)
            abort();
    }
    return NULL;
}

static void test_outside_submitters_and_churn(void **state)
{
    (void)state;
    atomic_store(&created, 0);
    atomic_store(&executed, 0);
    atomic_store(&double_runs, 0);
    atomic_store(&budget, 1000);
    create_pools();
    submit_rounds = test_iters("SPOOL_TEST_MIX_ROUNDS", 1000) / 4 + 1;
    pthread_t t[SUBMITTERS + 1];
    for (int i = 0; i < SUBMITTERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, submitter, (void *)(uintptr_t)(i * 7919 + 1)), 0);
    assert_int_equal(pthread_create(&t[SUBMITTERS], NULL, churner, NULL), 0);
    for (int i = 0; i <= SUBMITTERS; i++)
        pthread_join(t[i], NULL);
    destroy_pools_and_check();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_mix),
        cmocka_unit_test(test_outside_submitters_and_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
