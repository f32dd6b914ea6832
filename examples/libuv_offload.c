/*
 * spool inside a libuv program: a TCP server on 127.0.0.1 whose event loop
 * never runs the CPU work itself.  Each request line "N" asks for a hash
 * that takes N rounds of mixing; the server makes it a spool task, asks for
 * a completion tag on a queue, and answers "N HASH" when the queue's
 * descriptor (watched with uv_poll) says the task has finished.  A timer
 * ticks every 5 ms meanwhile: its largest gap shows that the loop was never
 * blocked.  The same server can offload through libuv's own thread pool
 * (uv_queue_work) instead, for comparison (bench/uv_offload.c).
 *
 *   spool_example_libuv_offload                    serve; prints the port
 *   spool_example_libuv_offload --self-test [REQUESTS] [CLIENTS]
 *       starts the server, runs CLIENTS client threads that send REQUESTS
 *       requests each over the loopback and check every answer, then
 *       checks that the timer's largest gap stayed under
 *       SPOOL_EXAMPLE_MAX_TICK_GAP_MS (default 500); exit status 0 if so.
 */
#define _POSIX_C_SOURCE 200809L
#include <spool.h>
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the CPU work ------------------------------------------------------- */

/* n rounds of a 64-bit mix (splitmix64's finaliser), seeded with n. */
static uint64_t work_hash(uint64_t n)
{
    uint64_t x = n * 0x9E3779B97F4A7C15u;
    for (uint64_t i = 0; i < n; i++) {
        x += 0x9E3779B97F4A7C15u;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        x ^= z ^ (z >> 31);
    }
    return x;
}

/* ---- the server ---------------------------------------------------------- */

typedef enum { OFFLOAD_SPOOL, OFFLOAD_UV_QUEUE_WORK } offload_t;

typedef struct server server_t;

typedef struct client {
    uv_tcp_t tcp;
    server_t *server;
    char line[64];
    size_t len;
    unsigned in_flight; /* requests not yet answered */
    int closing;
} client_t;

typedef struct request {
    uv_work_t work; /* OFFLOAD_UV_QUEUE_WORK */
    client_t *client;
    uint64_t n, hash;
} request_t;

struct server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_timer_t timer;
    uv_poll_t poll;
    uv_async_t stop;
    offload_t offload;
    spool_completions_t *cq;
    uint64_t last_tick_ms, max_gap_ms;
    unsigned long answered, outstanding;
    int port;
};

typedef struct write_req {
    uv_write_t req;
    char text[64];
} write_req_t;

static void on_closed(uv_handle_t *h)
{
    free(h->data);
}

static void client_close(client_t *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->tcp.data = c->in_flight == 0 ? c : NULL; /* freed when its last answer is done */
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

/* A request has its hash: answer it, on the loop's thread. */
static void answer(request_t *r)
{
    client_t *c = r->client;
    c->server->answered++;
    c->server->outstanding--;
    c->in_flight--;
    if (!c->closing) {
        write_req_t *w = malloc(sizeof *w);
        if (w != NULL) {
            int len = snprintf(w->text, sizeof w->text, "%llu %016llx\n",
                               (unsigned long long)r->n, (unsigned long long)r->hash);
            uv_buf_t buf = uv_buf_init(w->text, (unsigned)len);
            if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_written) != 0)
                free(w);
        }
    } else if (c->in_flight == 0) {
        free(c); /* closed while its requests ran */
    }
    free(r);
}

/* OFFLOAD_SPOOL: the task, on a worker. */
static void hash_task(void *arg)
{
    request_t *r = arg;
    r->hash = work_hash(r->n);
}

/* The completion queue's descriptor is readable: tasks have finished. */
static void on_completions(uv_poll_t *handle, int status, int events)
{
    (void)status;
    (void)events;
    server_t *s = handle->data;
    void *tags[64];
    size_t n;
    while ((n = spool_completions_take(s->cq, tags, 64)) > 0)
        for (size_t i = 0; i < n; i++)
            answer(tags[i]);
}

/* OFFLOAD_UV_QUEUE_WORK: the same work on libuv's thread pool. */
static void uv_work(uv_work_t *w)
{
    request_t *r = w->data;
    r->hash = work_hash(r->n);
}

static void uv_work_done(uv_work_t *w, int status)
{
    (void)status;
    answer(w->data);
}

static int offload(server_t *s, request_t *r)
{
    if (s->offload == OFFLOAD_UV_QUEUE_WORK) {
        r->work.data = r;
        return uv_queue_work(s->loop, &r->work, uv_work, uv_work_done);
    }
    spool_task_t *t;
    int err = spool_task_create(NULL, hash_task, r, &t);
    if (err != 0)
        return err;
    err = spool_task_notify(t, s->cq, r);
    if (err == 0)
        err = spool_task_submit(t);
    spool_task_release(t); /* submitted: it runs; else cancelled, posts nothing */
    return err;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    static char storage[65536]; /* the loop's thread only */
    (void)suggested;
    *buf = uv_buf_init(storage, sizeof storage);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    client_t *c = stream->data;
    if (nread < 0) {
        client_close(c);
        return;
    }
    for (ssize_t i = 0; i < nread; i++) {
        char ch = buf->base[i];
        if (ch != '\n') {
            if (c->len + 1 < sizeof c->line)
                c->line[c->len++] = ch;
            continue;
        }
        c->line[c->len] = '\0';
        c->len = 0;
        request_t *r = calloc(1, sizeof *r);
        if (r == NULL)
            continue;
        r->client = c;
        r->n = strtoull(c->line, NULL, 10);
        c->in_flight++;
        c->server->outstanding++;
        if (offload(c->server, r) != 0) {
            r->hash = work_hash(r->n); /* no pool: answer from here */
            answer(r);
        }
    }
}

static void on_connection(uv_stream_t *listener, int status)
{
    server_t *s = listener->data;
    if (status < 0)
        return;
    client_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return;
    c->server = s;
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0 ||
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0)
        client_close(c);
}

static void on_tick(uv_timer_t *t)
{
    server_t *s = t->data;
    uint64_t now = uv_hrtime() / 1000000u;
    if (s->last_tick_ms != 0 && now - s->last_tick_ms > s->max_gap_ms)
        s->max_gap_ms = now - s->last_tick_ms;
    s->last_tick_ms = now;
}

static void close_any(uv_handle_t *h, void *arg)
{
    server_t *s = arg;
    if (uv_is_closing(h))
        return;
    if (h->type == UV_TCP && h != (uv_handle_t *)&s->listener)
        client_close(h->data);
    else
        uv_close(h, NULL);
}

static void on_stop(uv_async_t *a)
{
    server_t *s = a->data;
    uv_stop(s->loop);
}

/* Sets the server up on loop, listening on 127.0.0.1 (port 0: any free
 * one, in s->port after).  0 or a libuv / errno error. */
static int server_start(server_t *s, uv_loop_t *loop, offload_t how, int port)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->offload = how;
    int err = spool_completions_create(&s->cq);
    if (err != 0)
        return -err;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", port, &addr);
    uv_tcp_init(loop, &s->listener);
    s->listener.data = s;
    err = uv_tcp_bind(&s->listener, (const struct sockaddr *)&addr, 0);
    if (err == 0)
        err = uv_listen((uv_stream_t *)&s->listener, 128, on_connection);
    if (err != 0)
        return err;
    struct sockaddr_storage bound;
    int len = sizeof bound;
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &len);
    s->port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
    uv_timer_init(loop, &s->timer);
    s->timer.data = s;
    uv_timer_start(&s->timer, on_tick, 5, 5);
    uv_poll_init(loop, &s->poll, spool_completions_fd(s->cq));
    s->poll.data = s;
    uv_poll_start(&s->poll, UV_READABLE, on_completions);
    uv_async_init(loop, &s->stop, on_stop);
    s->stop.data = s;
    return 0;
}

/* After the loop stopped: every handle closed, every request answered or
 * dropped (its client gone), the queue destroyed. */
static void server_finish(server_t *s)
{
    uv_walk(s->loop, close_any, s);
    uv_run(s->loop, UV_RUN_DEFAULT); /* uv_queue_work's requests end here */
    void *tags[64];
    while (s->outstanding > 0) {
        size_t n = spool_completions_wait(s->cq, tags, 64, -1);
        for (size_t i = 0; i < n; i++)
            answer(tags[i]);
    }
    spool_completions_destroy(s->cq);
}

/* ---- a client, for the self-test and the benchmark ------------------------ */

static int client_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends "n\n" and reads the answer line; 0 if it is n's right hash. */
static int client_request(int fd, uint64_t n)
{
    char out[32], in[64];
    int len = snprintf(out, sizeof out, "%llu\n", (unsigned long long)n);
    if (write(fd, out, (size_t)len) != len)
        return -1;
    size_t got = 0;
    while (got == 0 || in[got - 1] != '\n') {
        ssize_t r = read(fd, in + got, sizeof in - 1 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    in[got] = '\0';
    unsigned long long echoed, hash;
    if (sscanf(in, "%llu %llx", &echoed, &hash) != 2)
        return -1;
    return echoed == n && hash == work_hash(n) ? 0 : 1;
}

#ifndef LIBUV_OFFLOAD_NO_MAIN

typedef struct self_test_client {
    int port;
    unsigned long requests, wrong;
    unsigned id;
} self_test_client_t;

static void *self_test_client(void *arg)
{
    self_test_client_t *c = arg;
    int fd = client_connect(c->port);
    if (fd < 0) {
        c->wrong = c->requests;
        return NULL;
    }
    for (unsigned long i = 0; i < c->requests; i++)
        if (client_request(fd, 200000 + 7919 * (i % 50) + c->id) != 0)
            c->wrong++;
    close(fd);
    return NULL;
}

typedef struct self_test {
    server_t *server;
    unsigned clients;
    self_test_client_t *c;
} self_test_t;

static void *self_test_driver(void *arg)
{
    self_test_t *t = arg;
    pthread_t threads[64];
    for (unsigned i = 0; i < t->clients; i++)
        pthread_create(&threads[i], NULL, self_test_client, &t->c[i]);
    for (unsigned i = 0; i < t->clients; i++)
        pthread_join(threads[i], NULL);
    uv_async_send(&t->server->stop);
    return NULL;
}

int main(int argc, char **argv)
{
    uv_loop_t *loop = uv_default_loop();
    server_t s;
    int self_test = argc > 1 && strcmp(argv[1], "--self-test") == 0;
    int err = server_start(&s, loop, OFFLOAD_SPOOL, 0);
    if (err != 0) {
        fprintf(stderr, "libuv_offload: cannot start: %s\n", uv_strerror(err));
        return 1;
    }
    if (!self_test) {
        printf("listening on 127.0.0.1:%d; send lines with a number\n", s.port);
        fflush(stdout);
        uv_run(loop, UV_RUN_DEFAULT);
        return 0;
    }
    unsigned long requests = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
    unsigned clients = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 3;
    if (clients == 0 || clients > 64)
        clients = 3;
    const char *env = getenv("SPOOL_EXAMPLE_MAX_TICK_GAP_MS");
    uint64_t bound = env != NULL ? strtoull(env, NULL, 10) : 500;
    self_test_client_t c[64];
    for (unsigned i = 0; i < clients; i++)
        c[i] = (self_test_client_t){s.port, requests, 0, i};
    self_test_t t = {&s, clients, c};
    pthread_t driver;
    pthread_create(&driver, NULL, self_test_driver, &t);
    uv_run(loop, UV_RUN_DEFAULT); /* until the driver's stop */
    pthread_join(driver, NULL);
    unsigned long wrong = 0;
    for (unsigned i = 0; i < clients; i++)
        wrong += c[i].wrong;
    unsigned long answered = s.answered;
    uint64_t gap = s.max_gap_ms;
    server_finish(&s);
    uv_loop_close(loop);
    printf("%lu requests from %u clients, %lu answered, %lu wrong; the 5 ms timer's "
           "largest gap %llu ms (bound %llu)\n",
           requests * clients, clients, answered, wrong, (unsigned long long)gap,
           (unsigned long long)bound);
    return wrong == 0 && answered == requests * clients && gap <= bound ? 0 : 1;
}

#endif
