/* A breadth-first tree walk with a FIFO scope, the traversal that rayon's
 * scope_fifo was made for (Servo's Stylo; rayon-rs/rfcs, scope
 * scheduling): each node is processed, then its children are spawned; with
 * spool_scope_fifo each worker finishes the siblings it spawned before
 * their children.  On one thread the order is exactly breadth-first, which
 * this program checks.  Usage: spool_example_tree_walk [depth] [fanout] */
#include <spool.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
    unsigned depth;
    unsigned id; /* breadth-first number */
    struct node *children;
    unsigned num_children;
} node_t;

typedef struct walk {
    atomic_uint visited;
    atomic_uint out_of_order; /* one thread: a node seen before an earlier level */
    atomic_uint last_depth;
} walk_t;

static walk_t walk;

static void visit(spool_scope_t *scope, void *arg)
{
    node_t *n = arg;
    atomic_fetch_add(&walk.visited, 1);
    if (n->depth < atomic_load(&walk.last_depth))
        atomic_fetch_add(&walk.out_of_order, 1);
    atomic_store(&walk.last_depth, n->depth);
    for (unsigned i = 0; i < n->num_children; i++)
        if (spool_scope_spawn(scope, visit, &n->children[i]) != 0)
            visit(scope, &n->children[i]);
}

static unsigned build(node_t *n, unsigned depth, unsigned max_depth, unsigned fanout)
{
    n->depth = depth;
    n->num_children = depth < max_depth ? fanout : 0;
    n->children = n->num_children ? calloc(n->num_children, sizeof *n->children) : NULL;
    unsigned count = 1;
    for (unsigned i = 0; i < n->num_children; i++)
        count += build(&n->children[i], depth + 1, max_depth, fanout);
    return count;
}

static void release(node_t *n)
{
    for (unsigned i = 0; i < n->num_children; i++)
        release(&n->children[i]);
    free(n->children);
}

static void root_body(spool_scope_t *scope, void *arg)
{
    spool_scope_spawn(scope, visit, arg);
}

typedef struct walk_args {
    node_t *root;
} walk_args_t;

static void walk_tree(void *arg)
{
    walk_args_t *w = arg;
    spool_scope_fifo(root_body, w->root);
}

int main(int argc, char **argv)
{
    unsigned depth = argc > 1 ? (unsigned)atoi(argv[1]) : 6;
    unsigned fanout = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
    node_t root;
    unsigned total = build(&root, 0, depth, fanout);
    int status = 0;
    unsigned threads[] = {1, 4};
    for (int k = 0; k < 2; k++) {
        spool_config_t config = {.num_threads = threads[k]};
        spool_pool_t *pool;
        if (spool_pool_create(&config, &pool) != 0)
            return 1;
        atomic_store(&walk.visited, 0);
        atomic_store(&walk.out_of_order, 0);
        atomic_store(&walk.last_depth, 0);
        walk_args_t w = {&root};
        spool_pool_install(pool, walk_tree, &w);
        spool_pool_destroy(pool);
        unsigned visited = atomic_load(&walk.visited), disorder = atomic_load(&walk.out_of_order);
        printf("%u threads: visited %u of %u nodes, %u out of breadth-first order\n",
               threads[k], visited, total, disorder);
        if (visited != total || (threads[k] == 1 && disorder != 0))
            status = 1;
    }
    release(&root);
    return status;
}
