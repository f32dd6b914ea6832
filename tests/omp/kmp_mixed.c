/* A process whose OpenMP comes from a library gcc built and one clang
 * built (kmp_mix.c, both linked with libspool-omp): their regions and
 * tasks nest in each other, at the top level and inside spool jobs, give
 * the right count, and the process never has more threads than its first
 * region of OMP_NUM_THREADS (4) made (the pool's 3 workers, main, and a
 * sanitizer's own thread where it has one).  Exits 0 if so, else 1 with a
 * line. */
#include <dirent.h>
#include <stdio.h>

#include "spool.h"

typedef void (*any_fn)(void);
long gcc_side(int depth, long *widest, any_fn other);
long clang_side(int depth, long *widest, any_fn other);

/* Calls of a tree of depth d: 1 + 4 + ... + 4^d. */
static long tree(int d)
{
    long n = 1, level = 1;
    for (int i = 0; i < d; i++) {
        level *= 4;
        n += level;
    }
    return n;
}

static int os_threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

typedef struct job {
    int depth;
    long result, widest;
    int threads;
} job_t;

static void from_gcc(void *arg)
{
    job_t *j = arg;
    j->result = gcc_side(j->depth, &j->widest, (any_fn)clang_side);
    j->threads = os_threads();
}

static void from_clang(void *arg)
{
    job_t *j = arg;
    j->result = clang_side(j->depth, &j->widest, (any_fn)gcc_side);
    j->threads = os_threads();
}

static int most_threads; /* the threads after the first region */

static int check(const char *what, const job_t *j)
{
    if (j->result != tree(j->depth) || j->widest < 1 || j->widest > 4 ||
        j->threads > most_threads) {
        fprintf(stderr, "kmp_mixed: %s: %ld calls (want %ld), widest team %ld, %d threads\n",
                what, j->result, tree(j->depth), j->widest, j->threads);
        return 1;
    }
    return 0;
}

int main(void)
{
    int bad = 0;
    long widest = 0;
    if (gcc_side(1, &widest, (any_fn)clang_side) != 5 || widest != 4) {
        fprintf(stderr, "kmp_mixed: the first region has %ld threads, not 4\n", widest);
        return 1;
    }
    most_threads = os_threads();
    for (int round = 0; round < 3; round++) {
        job_t a = {.depth = 4}, b = {.depth = 4};
        from_gcc(&a);
        from_clang(&b);
        bad |= check("gcc, then clang, from main", &a) | check("clang, then gcc, from main", &b);
        /* Both at once in spool jobs: regions inside a job take the
         * pool's idle workers. */
        job_t c = {.depth = 3}, d = {.depth = 3};
        spool_join(from_gcc, &c, from_clang, &d);
        bad |= check("gcc in a spool job", &c) | check("clang in a spool job", &d);
    }
    int n = os_threads();
    if (n > most_threads) {
        fprintf(stderr, "kmp_mixed: %d threads at the end\n", n);
        bad = 1;
    }
    if (!bad)
        printf("kmp_mixed: both doors nest, %d threads\n", n);
    return bad;
}
