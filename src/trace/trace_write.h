/* Internal: a trace read out of the rings, and its two file formats. */
#ifndef SPOOL_TRACE_WRITE_H
#define SPOOL_TRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

typedef struct spool__span {
    uint64_t start, end, fn, arg, info; /* as recorded */
    double start_ns, end_ns;            /* from the trace's start */
} spool__span_t;

typedef struct spool__worker_snapshot {
    spool__span_t *spans; /* oldest first */
    size_t count;
    uint64_t recorded; /* records ever written: lost = recorded - count */
    uint64_t lost;
    char name[48];
} spool__worker_snapshot_t;

typedef struct spool__fn_name {
    uint64_t fn;
    char *name;
} spool__fn_name_t;

typedef struct spool__snapshot {
    spool__worker_snapshot_t *workers;
    unsigned num_workers;
    double duration_ns; /* start to stop (or now), or to the last span's end */
    const char *clock;
    spool__fn_name_t *names; /* sorted by fn */
    size_t num_names;
} spool__snapshot_t;

static inline unsigned spool__span_kind(const spool__span_t *s)
{
    return (unsigned)(s->info & 15u);
}
static inline unsigned spool__span_from(const spool__span_t *s)
{
    return (unsigned)(s->info >> 4 & 7u);
}
/* A job of a cancelled scope, dropped unrun (SPOOL__FROM_DROPPED). */
static inline unsigned spool__span_dropped(const spool__span_t *s)
{
    return (unsigned)(s->info >> 4 & SPOOL__FROM_DROPPED) != 0;
}
static inline unsigned spool__span_victim(const spool__span_t *s)
{
    return (unsigned)(s->info >> 8 & 0xffffu);
}
static inline unsigned spool__span_depth(const spool__span_t *s)
{
    return (unsigned)(s->info >> 32);
}

/* The timeline's clock (trace/read.c): chosen once, before the first
 * trace starts; a (ticks, ns) pair read as close together as it allows. */
void spool__trace_clock_init(void);
void spool__trace_clock_pair(uint64_t *ticks, uint64_t *ns);

/* A trace of num_workers rings of capacity records each, zeroed; NULL if
 * memory runs out.  Freed with spool__trace_free once no worker records. */
spool__trace_t *spool__trace_new(unsigned num_workers, size_t capacity);
void spool__trace_free(spool__trace_t *t);

/* Reads every ring of t into snap, times in ns from t's start; ring i is
 * named thread_name-i, ring caller_row thread_name-caller.  0 or ENOMEM;
 * either way snap is freed with spool__snapshot_free. */
int spool__trace_snapshot(spool__trace_t *t, const char *thread_name, unsigned caller_row,
                          spool__snapshot_t *snap);
void spool__snapshot_free(spool__snapshot_t *snap);

/* Fills snap's sorted table of the distinct functions and their names. */
int spool__snapshot_resolve_names(spool__snapshot_t *snap);

/* The index of fn's entry in snap->names. */
size_t spool__snapshot_name_index(const spool__snapshot_t *snap, uint64_t fn);

/* 0, or the errno of the failing call (EIO if it set none). */
int spool__trace_write_json(const spool__snapshot_t *snap, const char *path);
int spool__trace_write_html(const spool__snapshot_t *snap, const char *path);

#endif
