/* The timeline: starting and stopping a trace, SPOOL_TRACE, and reading the
 * rings (trace.md).  The writers of the two formats are in trace_write.c. */
#define _GNU_SOURCE /* dladdr */
#include "trace_write.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker.h"

bool spool__trace_use_tsc;

void spool__trace_describe(const spool__job_t *job, spool__job_info_t *info)
{
    spool__job_kind(job)->describe(job, info);
}

void spool__trace_describe_call(void (*fn)(void *), void *arg, spool__job_info_t *info)
{
    if (spool__loop_describe(fn, arg, info))
        return;
    info->fn = spool__fn_bits((void (*)(void))fn);
    info->arg = (uint64_t)(uintptr_t)arg;
}

#if SPOOL__TRACE_ENABLED

/* The TSC only where the kernel keeps time with it: then it is invariant and
 * the same on every core, and a read costs about half of clock_gettime's. */
static void choose_clock(void)
{
#ifdef SPOOL__HAVE_TSC
    const char *env = getenv("SPOOL_TRACE_CLOCK");
    if (env != NULL && strcmp(env, "monotonic") == 0)
        return;
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL)
        return;
    char name[32] = "";
    if (fgets(name, sizeof name, f) != NULL && strcmp(name, "tsc\n") == 0)
        spool__trace_use_tsc = true;
    fclose(f);
#endif
}

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

/* A (ticks, ns) pair read as close together as the clocks allow. */
static void clock_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t a = spool__trace_now();
    *ns = spool__now_ns();
    uint64_t b = spool__trace_now();
    *ticks = a + (b - a) / 2;
}

static void trace_free(spool__trace_t *t)
{
    free(t->stop_written);
    for (unsigned i = 0; i < t->num_workers; i++)
        free(t->rings[i].records);
    free(t);
}

static spool__trace_t *trace_new(unsigned num_workers, size_t capacity)
{
    if (capacity > SIZE_MAX / sizeof(spool__trace_record_t))
        return NULL;
    size_t size = sizeof(spool__trace_t) + num_workers * sizeof(spool__trace_ring_t);
    size = (size + SPOOL__CACHE_LINE - 1) / SPOOL__CACHE_LINE * SPOOL__CACHE_LINE;
    spool__trace_t *t = aligned_alloc(SPOOL__CACHE_LINE, size);
    if (t == NULL)
        return NULL;
    memset(t, 0, size);
    t->capacity = capacity;
    t->num_workers = num_workers;
    /* Allocated now: stopping must not fail for want of memory. */
    t->stop_written = calloc(num_workers, sizeof *t->stop_written);
    if (t->stop_written == NULL) {
        free(t);
        return NULL;
    }
    for (unsigned i = 0; i < num_workers; i++) {
        /* calloc: the pages are touched when a record lands, not now. */
        t->rings[i].records = calloc(capacity, sizeof(spool__trace_record_t));
        if (t->rings[i].records == NULL) {
            t->num_workers = i;
            trace_free(t);
            return NULL;
        }
    }
    return t;
}

static int trace_start_locked(spool_pool_t *pool, size_t records_per_worker)
{
    spool__trace_state_t *s = &pool->trace;
    /* Relaxed: current is only written under the lock the caller holds. */
    if (atomic_load_explicit(&s->current, memory_order_relaxed) != NULL)
        return EALREADY;
    pthread_once(&clock_once, choose_clock);
    spool__trace_t *t = trace_new(pool->num_slots, records_per_worker);
    if (t == NULL)
        return ENOMEM;
    clock_pair(&t->start_ticks, &t->start_ns);
    t->older = s->last;
    s->last = t;
    /* Release pairs with the acquire load in spool__trace_current: a worker
     * that sees t sees its rings zeroed and the clock chosen. */
    atomic_store_explicit(&s->current, t, memory_order_release);
    return 0;
}

static int check_pool(spool_pool_t *pool)
{
    if (pool == NULL)
        return EINVAL;
    return spool__pool_check_fork(pool);
}

int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    if (records_per_worker == 0)
        return EINVAL;
    pthread_mutex_lock(&pool->trace.lock);
    err = trace_start_locked(pool, records_per_worker);
    pthread_mutex_unlock(&pool->trace.lock);
    return err;
}

int spool_pool_trace_stop(spool_pool_t *pool)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    spool__trace_state_t *s = &pool->trace;
    pthread_mutex_lock(&s->lock);
    /* Relaxed: current is only written under this lock. */
    spool__trace_t *t = atomic_load_explicit(&s->current, memory_order_relaxed);
    if (t == NULL) {
        err = EALREADY;
    } else {
        t->stop_ticks = spool__trace_now();
        /* Relaxed: workers only compare the pointer with theirs; a worker
         * still recording into t is harmless (trace.md). */
        atomic_store_explicit(&s->current, NULL, memory_order_relaxed);
        for (unsigned i = 0; i < t->num_workers; i++)
            /* Relaxed: only the count is kept here; trace_write's copy
             * acquires the records it reads. */
            t->stop_written[i] = atomic_load_explicit(&t->rings[i].written, memory_order_relaxed);
        t->stopped = true;
    }
    pthread_mutex_unlock(&s->lock);
    return err;
}

/* ---- reading the rings ---------------------------------------------------- */

/* Reads every ring of t into snap, times in ns from t's start. */
static int snapshot(spool_pool_t *pool, spool__trace_t *t, spool__snapshot_t *snap)
{
    memset(snap, 0, sizeof *snap);
    snap->num_workers = t->num_workers;
    snap->workers = calloc(t->num_workers, sizeof *snap->workers);
    if (snap->workers == NULL)
        return ENOMEM;
    /* Ticks to ns: the TSC's rate from the start to now. */
    uint64_t now_ticks, now_ns;
    clock_pair(&now_ticks, &now_ns);
    double scale = 1.0;
    if (spool__trace_use_tsc && now_ticks > t->start_ticks && now_ns > t->start_ns)
        scale = (double)(now_ns - t->start_ns) / (double)(now_ticks - t->start_ticks);
    uint64_t end_ticks = t->stopped ? t->stop_ticks : now_ticks;
    snap->duration_ns = (double)(end_ticks - t->start_ticks) * scale;
    spool__trace_copy_t *copy = malloc(t->capacity * sizeof *copy);
    if (copy == NULL)
        return ENOMEM;
    for (unsigned i = 0; i < t->num_workers; i++) {
        spool__worker_snapshot_t *ws = &snap->workers[i];
        ws->spans = malloc(t->capacity * sizeof *ws->spans);
        if (ws->spans == NULL) {
            free(copy);
            return ENOMEM;
        }
        uint64_t limit = t->stopped ? t->stop_written[i] : UINT64_MAX;
        ws->count = spool__trace_ring_copy(&t->rings[i], t->capacity, limit, copy, &ws->recorded);
        ws->lost = ws->recorded - ws->count;
        if (i == pool->num_threads) /* the caller slot's row */
            snprintf(ws->name, sizeof ws->name, "%s-caller", pool->thread_name);
        else
            snprintf(ws->name, sizeof ws->name, "%s-%u", pool->thread_name, i);
        for (size_t k = 0; k < ws->count; k++) {
            spool__span_t *sp = &ws->spans[k];
            sp->start = copy[k].start;
            sp->end = copy[k].end;
            sp->fn = copy[k].fn;
            sp->arg = copy[k].arg;
            sp->info = copy[k].info;
            /* A record may start before the trace if its wait began under
             * an earlier one: clamp it. */
            sp->start_ns = sp->start > t->start_ticks ? (double)(sp->start - t->start_ticks) * scale : 0;
            sp->end_ns = sp->end > t->start_ticks ? (double)(sp->end - t->start_ticks) * scale : 0;
            if (sp->end_ns > snap->duration_ns)
                snap->duration_ns = sp->end_ns;
        }
    }
    free(copy);
    snap->clock = spool__trace_use_tsc ? "tsc" : "monotonic";
    return 0;
}

static void snapshot_free(spool__snapshot_t *snap)
{
    if (snap->workers != NULL)
        for (unsigned i = 0; i < snap->num_workers; i++)
            free(snap->workers[i].spans);
    free(snap->workers);
    for (size_t i = 0; i < snap->num_names; i++)
        free(snap->names[i].name);
    free(snap->names);
}

/* ---- function names ------------------------------------------------------- */

static int compare_fn(const void *a, const void *b)
{
    uint64_t x = ((const spool__fn_name_t *)a)->fn, y = ((const spool__fn_name_t *)b)->fn;
    return x < y ? -1 : x > y;
}

/* The name of the function at value in the ELF file's own symbol table
 * (.symtab: static functions too, unless the file is stripped), into out.
 * False if the file or the symbol cannot be read.  Every offset read from
 * the file is checked against its size. */
static bool elf_symbol(const char *file, uint64_t value, char *out, size_t out_size)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool found = false;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr)))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    const unsigned char *base = map;
    size_t size = (size_t)st.st_size;
    const ElfW(Ehdr) *eh = map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff > size || eh->e_shnum > (size - eh->e_shoff) / sizeof(ElfW(Shdr))) {
        munmap(map, size);
        return false;
    }
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
            strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
            continue;
        const ElfW(Sym) *sym = (const ElfW(Sym) *)(base + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
        const char *names = (const char *)(base + strtab->sh_offset);
        for (size_t k = 0; k < n; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value != value ||
                sym[k].st_name >= strtab->sh_size)
                continue;
            const char *name = names + sym[k].st_name;
            size_t len = strnlen(name, strtab->sh_size - sym[k].st_name);
            if (len == 0 || len == strtab->sh_size - sym[k].st_name)
                continue;
            snprintf(out, out_size, "%.*s", (int)len, name);
            found = true;
            break;
        }
    }
    munmap(map, size);
    return found;
}

/* The name of the function at fn: its dynamic symbol, else its symbol in
 * its object's .symtab, else object+offset (addr2line -e object offset
 * resolves it from debug information). */
static char *resolve_name(uint64_t fn)
{
    char buf[512];
    Dl_info dl;
    void *addr = (void *)(uintptr_t)fn;
    if (fn == 0) {
        snprintf(buf, sizeof buf, "?");
    } else if (dladdr(addr, &dl) == 0 || dl.dli_fname == NULL) {
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fn);
    } else if (dl.dli_sname != NULL && dl.dli_saddr == addr) {
        snprintf(buf, sizeof buf, "%s", dl.dli_sname);
    } else {
        uint64_t offset = (uint64_t)((uintptr_t)addr - (uintptr_t)dl.dli_fbase);
        /* A position-independent object's symbols are relative to where it
         * was loaded; a fixed-address executable's are absolute. */
        const ElfW(Ehdr) *loaded = dl.dli_fbase;
        uint64_t value = loaded->e_type == ET_DYN ? offset : fn;
        const char *file = dl.dli_fname;
        if (file[0] == '\0' || !elf_symbol(file, value, buf, sizeof buf))
            snprintf(buf, sizeof buf, "%s+0x%llx", file[0] != '\0' ? file : "?",
                     (unsigned long long)offset);
    }
    return strdup(buf);
}

/* Fills snap's sorted table of the distinct functions and their names. */
static int resolve_names(spool__snapshot_t *snap)
{
    size_t total = 0;
    for (unsigned i = 0; i < snap->num_workers; i++)
        total += snap->workers[i].count;
    snap->names = malloc((total + 1) * sizeof *snap->names);
    if (snap->names == NULL)
        return ENOMEM;
    size_t n = 0;
    for (unsigned i = 0; i < snap->num_workers; i++)
        for (size_t k = 0; k < snap->workers[i].count; k++)
            snap->names[n++] = (spool__fn_name_t){snap->workers[i].spans[k].fn, NULL};
    qsort(snap->names, n, sizeof *snap->names, compare_fn);
    size_t unique = 0;
    for (size_t k = 0; k < n; k++)
        if (unique == 0 || snap->names[unique - 1].fn != snap->names[k].fn)
            snap->names[unique++] = snap->names[k];
    snap->num_names = 0;
    for (size_t k = 0; k < unique; k++) {
        snap->names[k].name = resolve_name(snap->names[k].fn);
        if (snap->names[k].name == NULL)
            return ENOMEM;
        snap->num_names = k + 1;
    }
    return 0;
}

size_t spool__snapshot_name_index(const spool__snapshot_t *snap, uint64_t fn)
{
    spool__fn_name_t key = {fn, NULL};
    const spool__fn_name_t *hit =
        bsearch(&key, snap->names, snap->num_names, sizeof key, compare_fn);
    return hit != NULL ? (size_t)(hit - snap->names) : 0;
}

/* ---- writing ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int spool_pool_trace_write(spool_pool_t *pool, const char *path)
{
    int err = check_pool(pool);
    if (err != 0)
        return err;
    if (path == NULL)
        return EINVAL;
    bool html = ends_with(path, ".html") || ends_with(path, ".htm");
    if (!html && !ends_with(path, ".json"))
        return EINVAL;
    pthread_mutex_lock(&pool->trace.lock);
    spool__trace_t *t = pool->trace.last;
    spool__snapshot_t snap;
    if (t == NULL) {
        err = EINVAL; /* nothing was ever traced */
    } else {
        err = snapshot(pool, t, &snap);
        if (err == 0)
            err = resolve_names(&snap);
        if (err == 0)
            err = html ? spool__trace_write_html(&snap, path) : spool__trace_write_json(&snap, path);
        snapshot_free(&snap);
    }
    pthread_mutex_unlock(&pool->trace.lock);
    return err;
}

/* ---- SPOOL_TRACE ----------------------------------------------------------- */

static atomic_uint traced_pools; /* numbers %n */

/* SPOOL_TRACE's path with %p (the process id) and %n (the pool's number
 * among the traced pools of the process, from 0) substituted. */
static char *expand_path(const char *pattern)
{
    size_t cap = strlen(pattern) + 64;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (const char *p = pattern; *p != '\0'; p++) {
        char num[24] = "";
        if (p[0] == '%' && p[1] == 'p')
            snprintf(num, sizeof num, "%ld", (long)getpid());
        else if (p[0] == '%' && p[1] == 'n')
            snprintf(num, sizeof num, "%u",
                     atomic_fetch_add_explicit(&traced_pools, 1, memory_order_relaxed));
        if (num[0] != '\0') {
            size_t len = strlen(num);
            if (n + len + 1 > cap)
                break;
            memcpy(out + n, num, len);
            n += len;
            p++;
        } else if (n + 2 <= cap) {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    return out;
}

static size_t env_records(void)
{
    const char *env = getenv("SPOOL_TRACE_RECORDS");
    if (env != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno == 0 && end != env && *end == '\0' && env[0] != '-' && v > 0 && v <= SIZE_MAX)
            return (size_t)v;
    }
    return (size_t)1 << 16;
}

int spool__trace_init(spool_pool_t *pool)
{
    spool__trace_state_t *s = &pool->trace;
    atomic_init(&s->current, NULL);
    s->last = NULL;
    s->env_path = NULL;
    int err = pthread_mutex_init(&s->lock, NULL);
    if (err != 0)
        return err;
    const char *env = getenv("SPOOL_TRACE");
    if (env == NULL || env[0] == '\0')
        return 0;
    s->env_path = expand_path(env);
    err = s->env_path == NULL ? ENOMEM : trace_start_locked(pool, env_records());
    if (err != 0) {
        /* The pool works without its timeline; say why there is none. */
        fprintf(stderr, "spool: SPOOL_TRACE=%s: %s\n", env, spool_strerror(err));
        free(s->env_path);
        s->env_path = NULL;
    }
    return 0;
}

void spool__trace_finish(spool_pool_t *pool)
{
    const char *path = pool->trace.env_path;
    if (path == NULL)
        return;
    int err = spool_pool_trace_write(pool, path);
    if (err != 0)
        fprintf(stderr, "spool: SPOOL_TRACE: cannot write %s: %s\n", path, spool_strerror(err));
}

void spool__trace_destroy(spool_pool_t *pool)
{
    spool__trace_state_t *s = &pool->trace;
    for (spool__trace_t *t = s->last; t != NULL;) {
        spool__trace_t *older = t->older;
        trace_free(t);
        t = older;
    }
    free(s->env_path);
    pthread_mutex_destroy(&s->lock);
}

#else /* !SPOOL__TRACE_ENABLED */

int spool_pool_trace_start(spool_pool_t *pool, size_t records_per_worker)
{
    (void)records_per_worker;
    return pool == NULL ? EINVAL : ENOTSUP;
}

int spool_pool_trace_stop(spool_pool_t *pool)
{
    return pool == NULL ? EINVAL : ENOTSUP;
}

int spool_pool_trace_write(spool_pool_t *pool, const char *path)
{
    return pool == NULL || path == NULL ? EINVAL : ENOTSUP;
}

int spool__trace_init(spool_pool_t *pool)
{
    const char *env = getenv("SPOOL_TRACE");
    if (env != NULL && env[0] != '\0')
        fprintf(stderr, "spool: SPOOL_TRACE=%s: %s\n", env, spool_strerror(ENOTSUP));
    (void)pool;
    return 0;
}

void spool__trace_finish(spool_pool_t *pool)
{
    (void)pool;
}

void spool__trace_destroy(spool_pool_t *pool)
{
    (void)pool;
}

#endif
