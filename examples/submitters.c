/* Several threads of the program's own submit work to one pool at once:
 * blocking installs, detached spawns, and joins from outside.
 * Usage: spool_example_submitters [threads] [jobs per thread] */
#include <spool.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static spool_pool_t *pool;
static atomic_long installs, spawns, joins;
static long jobs_per_thread;

static void count_install(void *arg)
{
    (void)arg;
    atomic_fetch_add(&installs, 1);
}
static void count_spawn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&spawns, 1);
}
static void count_join(void *arg)
{
    (void)arg;
    atomic_fetch_add(&joins, 1);
}

static void join_pair(void *arg)
{
    (void)arg;
    spool_join(count_join, NULL, count_join, NULL);
}

static void *submitter(void *arg)
{
    (void)arg;
    for (long i = 0; i < jobs_per_thread; i++) {
        if (spool_pool_install(pool, join_pair, NULL) != 0 ||
            spool_pool_install(pool, count_install, NULL) != 0 ||
            spool_pool_spawn(pool, count_spawn, NULL) != 0) {
            fprintf(stderr, "submission refused\n");
            exit(1);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    jobs_per_thread = argc > 2 ? atol(argv[2]) : 10000;
    if (threads < 1 || threads > 64 || spool_pool_create(NULL, &pool) != 0)
        return 1;
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, submitter, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    spool_pool_destroy(pool); /* waits for the detached spawns */
    long want = threads * jobs_per_thread;
    printf("%d submitters: %ld installs, %ld spawns, %ld joined halves (want %ld, %ld, %ld)\n",
           threads, atomic_load(&installs), atomic_load(&spawns), atomic_load(&joins), want,
           want, 2 * want);
    return atomic_load(&installs) == want && atomic_load(&spawns) == want &&
                   atomic_load(&joins) == 2 * want
               ? 0
               : 1;
}
