/* UTS trees (see uts.h) and a one-block SHA-1 (FIPS 180-1). */
#include "uts.h"

#include <math.h>
#include <string.h>

/* expect_leaves 0: not published for T1, so reported but not checked. */
const uts_tree_t uts_t1 = {"T1", UTS_GEOMETRIC, 4.0, 10, 0.0, 0, 19, 4130071, 0};
const uts_tree_t uts_t3 = {"T3", UTS_BINOMIAL, 2000.0, 0, 0.124875, 8, 42, 4112897, 3599034};

static uint32_t rotl(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

void uts_sha1_short(const unsigned char *msg, unsigned len, unsigned char digest[20])
{
    /* Pad into one 64-byte block: message, 0x80, zeros, bit length. */
    unsigned char block[64] = {0};
    memcpy(block, msg, len);
    block[len] = 0x80;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        block[63 - i] = (unsigned char)(bits >> (8 * i));

    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

    uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        uint32_t t = rotl(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rotl(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (unsigned char)(h[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(h[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(h[i] >> 8);
        digest[4 * i + 3] = (unsigned char)h[i];
    }
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

void uts_root(const uts_tree_t *t, uts_node_t *root)
{
    unsigned char seed[20] = {0};
    put_be32(seed + 16, (uint32_t)t->root_seed);
    root->height = 0;
    uts_sha1_short(seed, 20, root->state);
}

void uts_child(const uts_node_t *parent, int index, uts_node_t *child)
{
    unsigned char msg[24];
    memcpy(msg, parent->state, 20);
    put_be32(msg + 20, (uint32_t)index);
    child->height = parent->height + 1;
    uts_sha1_short(msg, 24, child->state);
}

/* The node's random number as a probability in [0, 1). */
static double node_probability(const uts_node_t *n)
{
    uint32_t r = (uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 |
                 (uint32_t)n->state[18] << 8 | n->state[19];
    return (double)(r & 0x7FFFFFFFu) / 2147483648.0;
}

int uts_num_children(const uts_tree_t *t, const uts_node_t *n)
{
    int count;
    if (t->type == UTS_BINOMIAL) {
        if (n->height == 0)
            return (int)floor(t->b0);
        return node_probability(n) < t->q ? t->m : 0;
    }
    /* Geometric with a fixed shape: branching factor b0 down to gen_mx. */
    double b = n->height == 0 || n->height < t->gen_mx ? t->b0 : 0.0;
    double p = 1.0 / (1.0 + b);
    count = (int)floor(log(1.0 - node_probability(n)) / log(1.0 - p));
    return count > 100 ? 100 : count; /* UTS's cap on non-root nodes */
}
