/* fib with spool_join, and with spool_fork_inline and spool_sync_inline
 * (spool_inline.h): every call with n >= 2 forks, and the times are
 * compared with plain recursion.  Usage: spool_example_fib [n] [threads] */
#include <spool.h>
#include <spool_inline.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct fib_task {
    unsigned n;
    unsigned long result;
} fib_task_t;

static unsigned long fib_seq(unsigned n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static void fib_par(void *arg)
{
    fib_task_t *t = arg;
    if (t->n < 2) {
        t->result = t->n;
        return;
    }
    fib_task_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join(fib_par, &a, fib_par, &b);
    t->result = a.result + b.result;
}

/* The same fib, typed: fib(n - 2) is offered to thieves, and run here,
 * as a plain call, unless one took it (then it ran through fib_b). */
static unsigned long fib_forks(unsigned n);

static void fib_b(void *arg)
{
    fib_task_t *t = arg;
    t->result = fib_forks(t->n);
}

static unsigned long fib_forks(unsigned n)
{
    if (n < 2)
        return n;
    fib_task_t b = {n - 2, 0};
    spool_fork_t f;
    spool_fork_inline(&f, fib_b, &b);
    unsigned long a = fib_forks(n - 1);
    if (spool_sync_inline(&f))
        b.result = fib_forks(n - 2);
    return a + b.result;
}

static void fib_forks_task(void *arg)
{
    fib_task_t *t = arg;
    t->result = fib_forks(t->n);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 30;
    spool_config_t config = {0};
    config.num_threads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    spool_pool_t *pool;
    int err = spool_pool_create(&config, &pool);
    if (err != 0) {
        fprintf(stderr, "spool_pool_create: %s\n", spool_strerror(err));
        return 1;
    }

    double t0 = now();
    unsigned long expected = fib_seq(n);
    double t_seq = now() - t0;

    fib_task_t warm_up = {20, 0}; /* wakes the workers, faults in their stacks */
    spool_pool_install(pool, fib_par, &warm_up);

    fib_task_t task = {n, 0};
    t0 = now();
    err = spool_pool_install(pool, fib_par, &task);
    double t_par = now() - t0;

    fib_task_t task_forks = {n, 0};
    t0 = now();
    if (err == 0)
        err = spool_pool_install(pool, fib_forks_task, &task_forks);
    double t_forks = now() - t0;

    printf("fib(%u) = %lu\n", n, task.result);
    printf("sequential: %.6f s\n", t_seq);
    printf("spool_join, %u threads: %.6f s (%.2fx the sequential time)\n",
           spool_pool_num_threads(pool), t_par, t_par / t_seq);
    printf("fork and sync, %u threads: %.6f s (%.2fx)\n", spool_pool_num_threads(pool), t_forks,
           t_forks / t_seq);
    spool_pool_destroy(pool);
    return err == 0 && task.result == expected && task_forks.result == expected ? 0 : 1;
}
