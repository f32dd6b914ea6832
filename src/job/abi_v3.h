/*
 * Internal: the exports of inline ABI 3 (spool 0.6's spool_inline.h and
 * spool_typed.h), kept so that programs built against 0.6 run on this
 * library.  Never included by programs (tests/abi_v3/ has 0.6's headers,
 * which a test builds a program with); listed here, with 0.6's own types,
 * so that abidiff and abidw (tests/abi.sh, scripts/abi-update.sh) count
 * them as the library's ABI.
 *
 * The layouts are inline ABI 4's, unchanged (join.c and worker.c check
 * it): each join and fork function is a call of its _v4 twin, and
 * spool__tls_fork_v3 points at what spool__tls_fork_v4 does.  A 0.6
 * program's join frames carry spool__join_execute_v3, which the library
 * takes for a join frame as it does spool__join_execute_v4 (job.h).  The
 * typed tasks of 0.6 keep their own frame stack (typed.c).
 */
#ifndef SPOOL_ABI_V3_H
#define SPOOL_ABI_V3_H

#include <stdint.h>

#include "spool.h"

struct spool__job;

struct spool__join_frame_v3 {
    void (*execute)(struct spool__job *job);
    spool_fn fn;
    void *arg;
    int latch;
};

struct spool__fork_owner_v3 {
    int64_t bottom;
    int64_t limit;
    int64_t floor;
    uintptr_t base;
};

SPOOL_API void spool__join_execute_v3(struct spool__job *job);
SPOOL_API void spool__fork_slow_v3(struct spool__join_frame_v3 *b);
SPOOL_API int spool__sync_finish_v3(struct spool__join_frame_v3 *b);
SPOOL_API extern __thread struct spool__fork_owner_v3 *spool__tls_fork_v3
    __attribute__((tls_model("initial-exec")));
SPOOL_API void spool__join_slow_v3(struct spool__join_frame_v3 *b, spool_fn a, void *arg_a);
SPOOL_API void spool__join_finish_v3(struct spool__join_frame_v3 *b, struct spool__job *popped);

SPOOL_API extern __thread char *spool__typed_top_v3 __attribute__((tls_model("initial-exec")));
SPOOL_API extern __thread char *spool__typed_end_v3 __attribute__((tls_model("initial-exec")));
SPOOL_API char *spool__typed_enter_v3(void);
SPOOL_API void spool__typed_overflow_v3(const char *name);
SPOOL_API void spool__typed_unsynced_v3(const char *name);
SPOOL_API void spool__typed_mismatch_v3(const char *name);
SPOOL_API void spool__typed_run_v3(spool_pool_t *pool, int in, spool_fn fn, void *frame);

#endif
