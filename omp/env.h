/* Internal: the environment libspool-omp reads once, its messages, and
 * the pool its regions use (env.c, getenv.c). */
#ifndef SPOOL_OMP_ENV_H
#define SPOOL_OMP_ENV_H

#include "base.h"

typedef struct spool__omp_env {
    spool__omp_icv_t icv;           /* the initial tasks' ICVs */
    unsigned long *nthreads_list;   /* OMP_NUM_THREADS's later levels, or NULL */
    unsigned long nthreads_list_len;
    int wait_policy;                /* 1 active, 0 passive, -1 unset */
    unsigned long spin;             /* pauses before a barrier parks */
    size_t stack_size;              /* OMP_STACKSIZE (0: unset) */
    bool cancellation;
    bool display_affinity;          /* OMP_DISPLAY_AFFINITY */
    int max_task_priority;
    unsigned cpus;                  /* CPUs the process may use */
    unsigned max_threads;           /* the most threads a team may have */
    uintptr_t def_allocator;        /* OMP_ALLOCATOR: def-allocator-var */
    /* nteams-var and teams-thread-limit-var (device ICVs: omp_set_num_teams
     * and omp_set_teams_thread_limit change them for every thread). */
    _Atomic int num_teams, teams_thread_limit;
} spool__omp_env_t;

extern spool__omp_env_t spool__omp_env;

/* libc's getenv, without getenv.c's look at its caller (this library's own
 * reads). */
char *spool__omp_getenv(const char *name);
/* Reads the environment, once (before any other use). */
void spool__omp_env_init(void);
/* One line on stderr, "libspool-omp: ...", and abort. */
_Noreturn void spool__omp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line on stderr, "libspool-omp: ...". */
void spool__omp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The pool for a region opened here: the calling worker's, else the global
 * pool (configured from the environment first); NULL if none can start. */
spool_pool_t *spool__omp_pool(void);

#endif
