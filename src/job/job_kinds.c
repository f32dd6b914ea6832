/* The table of job kinds (job.h, job.md): every kind linked into the image,
 * each a row that its own module puts in the section spool_kinds
 * (SPOOL__JOB_KIND_ROW), found by a hash of its execute function. */
#include "job/job.h"

#include <pthread.h>

#include "platform/atomics.h"

/* The linker's bounds of the section (GNU ld, gold, lld); weak, so that an
 * image with no kind at all links (and aborts at its first lookup). */
extern const spool__job_kind_t *const __start_spool_kinds[] __attribute__((weak, visibility("hidden")));
extern const spool__job_kind_t *const __stop_spool_kinds[] __attribute__((weak, visibility("hidden")));

#define SLOT_BITS 8
#define SLOTS (1u << SLOT_BITS)
/* Multipliers tried until one spreads every row to a slot of its own: a
 * few dozen kinds in 256 slots need a handful of tries at most. */
#define TRIES 4096

static struct {
    uint64_t mul;
    const spool__job_kind_t *slot[SLOTS];
} table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static atomic_bool table_ready;

static inline unsigned slot_of(uint64_t mul, void (*execute)(spool__job_t *))
{
    return (unsigned)(((uint64_t)(uintptr_t)execute * mul) >> (64 - SLOT_BITS));
}

static bool try_multiplier(uint64_t mul)
{
    for (unsigned i = 0; i < SLOTS; i++)
        table.slot[i] = NULL;
    for (const spool__job_kind_t *const *k = __start_spool_kinds; k < __stop_spool_kinds; k++) {
        unsigned i = slot_of(mul, (*k)->execute);
        if (table.slot[i] != NULL)
            return false;
        table.slot[i] = *k;
    }
    table.mul = mul;
    return true;
}

static void build_table(void)
{
    /* Odd multipliers from a fixed sequence (an odd start, even Weyl steps
     * of the golden ratio's): the same image builds the same table on every
     * run with the same addresses. */
    uint64_t mul = 0x9e3779b97f4a7c15u;
    for (unsigned t = 0; t < TRIES; t++, mul += 0x9e3779b97f4a7c16u)
        if (try_multiplier(mul)) {
            /* Release pairs with the acquire load in spool__job_kind: the
             * table's plain writes are seen with the flag. */
            atomic_store_explicit(&table_ready, true, memory_order_release);
            return;
        }
    spool__abort("internal error: no hash gives every job kind a slot of its own");
}

const spool__job_kind_t *spool__job_kind(const spool__job_t *job)
{
    /* Acquire pairs with the release store at the end of build_table;
     * until then pthread_once builds the table once and waits for it. */
    if (SPOOL__UNLIKELY(!atomic_load_explicit(&table_ready, memory_order_acquire)))
        pthread_once(&table_once, build_table);
    const spool__job_kind_t *k = table.slot[slot_of(table.mul, job->execute)];
    if (SPOOL__UNLIKELY(k == NULL || k->execute != job->execute))
        spool__abort("internal error: a job of no known kind");
    return k;
}
