/*
 * GenMC client for the timeline's ring (src/trace/trace.h, protocol in
 * src/trace/trace.md), under RC11 and IMM.  A worker thread appends RECORDS
 * records to a ring of CAPACITY slots with spool__trace_put (record i has
 * every field equal to i + 1); the reader (main) copies the ring once with
 * spool__trace_ring_copy while the worker writes.  Every record the copy
 * returns must be whole and the right one: consecutive indices ending at the
 * count it read, each with all five fields equal to its index + 1 (a torn
 * record, one overwritten during the copy, or one counted before its fields
 * were visible fails the assertion).
 *
 * Mutants (model/genmc/mutants, run by check.sh), each must be rejected:
 *   trace-claim-fence-relaxed   (writer's fence gone)
 *   trace-check-fence-relaxed   (reader's fence gone)
 *   trace-publish-relaxed (written not released)
 *   trace-count-relaxed   (written not acquired)
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "trace/trace.h"

bool spool__trace_use_tsc; /* trace/read.c's; never read here */

#ifndef CAPACITY
#define CAPACITY 2
#endif
#ifndef RECORDS
#define RECORDS 3
#endif

static spool__trace_record_t slots[CAPACITY];
static spool__trace_ring_t ring;

static void *worker(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= RECORDS; i++)
        spool__trace_put(&ring, CAPACITY, i, i, i, i, i);
    return NULL;
}

int main(void)
{
    ring.records = slots;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    spool__trace_copy_t out[CAPACITY];
    uint64_t recorded;
    size_t n = spool__trace_ring_copy(&ring, CAPACITY, UINT64_MAX, out, &recorded);
    assert(n <= CAPACITY && n <= recorded);
    for (size_t k = 0; k < n; k++) {
        uint64_t want = recorded - n + k + 1; /* the newest n, in order */
        assert(out[k].start == want && out[k].end == want && out[k].fn == want &&
               out[k].arg == want && out[k].info == want);
    }
    pthread_join(t, NULL);
    return 0;
}
