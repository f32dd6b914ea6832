/*
 * spool-uv-offload: the libuv offload server of examples/libuv_offload.c,
 * its CPU work handed to spool (tasks, a completion queue watched with
 * uv_poll) or to libuv's own thread pool (uv_queue_work), under C clients
 * on the loopback that each send a request, wait for its answer, and send
 * the next.  Prints requests per second and the p50 and p99 latency for
 * each backend and client count; the pools are each library's defaults
 * (spool: SPOOL_NUM_THREADS or one thread per CPU; libuv: UV_THREADPOOL_SIZE
 * or 4).
 *
 *   spool-uv-offload [-r REQUESTS_PER_CLIENT] [-c 1,2,4] [-w ROUNDS] [-n RUNS]
 *
 * ROUNDS is each request's work (rounds of the hash); every answer is
 * checked.
 */
#define LIBUV_OFFLOAD_NO_MAIN
#include "../examples/libuv_offload.c"

#include <time.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct bench_client {
    int port;
    long requests, rounds, wrong;
    long long *latency_ns;
} bench_client_t;

static void *bench_client(void *arg)
{
    bench_client_t *c = arg;
    int fd = client_connect(c->port);
    if (fd < 0) {
        c->wrong = c->requests;
        return NULL;
    }
    for (long i = 0; i < c->requests; i++) {
        long long t0 = now_ns();
        if (client_request(fd, (uint64_t)(c->rounds + (i & 7))) != 0)
            c->wrong++;
        c->latency_ns[i] = now_ns() - t0;
    }
    close(fd);
    return NULL;
}

typedef struct driver {
    server_t *server;
    unsigned clients;
    bench_client_t *c;
    double seconds;
} driver_t;

static void *bench_driver(void *arg)
{
    driver_t *d = arg;
    pthread_t threads[64];
    long long t0 = now_ns();
    for (unsigned i = 0; i < d->clients; i++)
        pthread_create(&threads[i], NULL, bench_client, &d->c[i]);
    for (unsigned i = 0; i < d->clients; i++)
        pthread_join(threads[i], NULL);
    d->seconds = (double)(now_ns() - t0) * 1e-9;
    uv_async_send(&d->server->stop);
    return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One run: rps, p50 and p99 in microseconds; -1 on a wrong answer. */
static int run_once(offload_t how, unsigned clients, long requests, long rounds, double out[3])
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    server_t s;
    if (server_start(&s, &loop, how, 0) != 0)
        return -1;
    bench_client_t c[64];
    long long *lat = malloc((size_t)(clients * requests) * sizeof *lat);
    for (unsigned i = 0; i < clients; i++)
        c[i] = (bench_client_t){s.port, requests, rounds, 0, lat + i * requests};
    driver_t d = {&s, clients, c, 0};
    pthread_t driver;
    pthread_create(&driver, NULL, bench_driver, &d);
    uv_run(&loop, UV_RUN_DEFAULT);
    pthread_join(driver, NULL);
    server_finish(&s);
    uv_loop_close(&loop);
    long wrong = 0;
    for (unsigned i = 0; i < clients; i++)
        wrong += c[i].wrong;
    long n = (long)clients * requests;
    qsort(lat, (size_t)n, sizeof *lat, cmp_ll);
    out[0] = (double)n / d.seconds;
    out[1] = (double)lat[n / 2] / 1000.0;
    out[2] = (double)lat[n * 99 / 100] / 1000.0;
    free(lat);
    return wrong == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long requests = 2000, rounds = 20000;
    int runs = 5;
    char clients_arg[64] = "1,2,4";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-r") == 0)
            requests = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-w") == 0)
            rounds = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-c") == 0)
            snprintf(clients_arg, sizeof clients_arg, "%s", argv[i + 1]);
    }
    if (requests < 1 || runs < 1)
        return 2;
    printf("backend        clients  req/s      p50_us   p99_us   (medians of %d runs, %ld "
           "requests per client, %ld rounds each)\n",
           runs, requests, rounds);
    int failed = 0;
    char *save = NULL;
    for (char *t = strtok_r(clients_arg, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        unsigned clients = (unsigned)atoi(t);
        if (clients < 1 || clients > 64)
            continue;
        for (int b = 0; b < 2; b++) {
            offload_t how = b == 0 ? OFFLOAD_UV_QUEUE_WORK : OFFLOAD_SPOOL;
            double *r[3];
            for (int k = 0; k < 3; k++)
                r[k] = malloc((size_t)runs * sizeof **r);
            for (int i = 0; i < runs; i++) {
                double out[3];
                if (run_once(how, clients, requests, rounds, out) != 0) {
                    fprintf(stderr, "spool-uv-offload: a wrong answer\n");
                    failed = 1;
                }
                for (int k = 0; k < 3; k++)
                    r[k][i] = out[k];
            }
            for (int k = 0; k < 3; k++)
                qsort(r[k], (size_t)runs, sizeof **r, cmp_double);
            printf("%-14s %-8u %-10.0f %-8.1f %-8.1f\n",
                   how == OFFLOAD_SPOOL ? "spool" : "uv_queue_work", clients, r[0][runs / 2],
                   r[1][runs / 2], r[2][runs / 2]);
            for (int k = 0; k < 3; k++)
                free(r[k]);
        }
    }
    return failed;
}
