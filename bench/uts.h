/*
 * The Unbalanced Tree Search benchmark's trees (Olivier et al., "UTS: An
 * Unbalanced Tree Search Benchmark", LCPC 2006): each node carries a 20-byte
 * SHA-1 state; a child's state is SHA-1(parent state || child index, 4 bytes
 * big-endian), the root's SHA-1(16 zero bytes || seed, big-endian); a node's
 * random number is the last 4 bytes of its state, big-endian, masked to 31
 * bits.  Written here from that description.
 */
#ifndef SPOOL_BENCH_UTS_H
#define SPOOL_BENCH_UTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { UTS_BINOMIAL = 0, UTS_GEOMETRIC = 1 } uts_type_t;

typedef struct uts_tree {
    const char *name;
    uts_type_t type;
    double b0;          /* root branching factor (geometric: every level) */
    int gen_mx;         /* geometric, fixed shape: depth limit */
    double q;           /* binomial: probability of a non-leaf */
    int m;              /* binomial: children of a non-leaf */
    int root_seed;
    uint64_t expect_nodes, expect_leaves;
} uts_tree_t;

typedef struct uts_node {
    int height;
    unsigned char state[20];
} uts_node_t;

/* T1 (-t 1 -a 3 -d 10 -b 4 -r 19) and T3 (-t 0 -b 2000 -q 0.124875 -m 8 -r 42). */
extern const uts_tree_t uts_t1, uts_t3;

void uts_root(const uts_tree_t *t, uts_node_t *root);
int uts_num_children(const uts_tree_t *t, const uts_node_t *n);
void uts_child(const uts_node_t *parent, int index, uts_node_t *child);

/* SHA-1 of a message of at most 55 bytes (one block). */
void uts_sha1_short(const unsigned char *msg, unsigned len, unsigned char digest[20]);

#ifdef __cplusplus
}
#endif

#endif
