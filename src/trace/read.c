/* Reading a trace: the timeline's clock, a trace's rings and their
 * lifetime, a snapshot of the rings, and the names of the functions it
 * records (trace.md).  A pool's start, stop and write are
 * pool/pool_trace.c's. */
#define _GNU_SOURCE /* dladdr */
#include "trace/trace_write.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool spool__trace_use_tsc;

/* The linker's bounds of the describers' section; weak: an image without
 * loops has none. */
extern const spool__trace_describer_t __start_spool_describers[] __attribute__((weak, visibility("hidden")));
extern const spool__trace_describer_t __stop_spool_describers[] __attribute__((weak, visibility("hidden")));

void spool__trace_describe_call(void (*fn)(void *), void *arg, spool__job_info_t *info)
{
    for (const spool__trace_describer_t *d = __start_spool_describers;
         d != NULL && d < __stop_spool_describers; d++)
        if ((*d)(fn, arg, info))
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

void spool__trace_clock_init(void)
{
    pthread_once(&clock_once, choose_clock);
}

/* A (ticks, ns) pair read as close together as the clocks allow. */
void spool__trace_clock_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t a = spool__trace_now();
    *ns = spool__now_ns();
    uint64_t b = spool__trace_now();
    *ticks = a + (b - a) / 2;
}

void spool__trace_free(spool__trace_t *t)
{
    free(t->stop_written);
    for (unsigned i = 0; i < t->num_workers; i++)
        free(t->rings[i].records);
    free(t);
}

spool__trace_t *spool__trace_new(unsigned num_workers, size_t capacity)
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
            spool__trace_free(t);
            return NULL;
        }
    }
    return t;
}

/* ---- reading the rings ---------------------------------------------------- */

int spool__trace_snapshot(spool__trace_t *t, const char *thread_name, unsigned caller_row,
                          spool__snapshot_t *snap)
{
    memset(snap, 0, sizeof *snap);
    snap->num_workers = t->num_workers;
    snap->workers = calloc(t->num_workers, sizeof *snap->workers);
    if (snap->workers == NULL)
        return ENOMEM;
    /* Ticks to ns: the TSC's rate from the start to now. */
    uint64_t now_ticks, now_ns;
    spool__trace_clock_pair(&now_ticks, &now_ns);
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
        if (i == caller_row) /* the caller slot's row */
            snprintf(ws->name, sizeof ws->name, "%s-caller", thread_name);
        else
            snprintf(ws->name, sizeof ws->name, "%s-%u", thread_name, i);
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

void spool__snapshot_free(spool__snapshot_t *snap)
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

int spool__snapshot_resolve_names(spool__snapshot_t *snap)
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

#endif /* SPOOL__TRACE_ENABLED */
