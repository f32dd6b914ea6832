/* The checks of the clang-built door tests (kmp_door.c, kmp_waits.c,
 * kmp_private.c): each wrong result is one line naming it, and each part's
 * lines are cmocka's, which tests/omp/mutants.sh reads.  KMP_TEST names
 * the program. */
#ifndef SPOOL_TESTS_KMP_CHECK_H
#define SPOOL_TESTS_KMP_CHECK_H

#include <omp.h>
#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, KMP_TEST ": %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void run_part(const char *name, void (*part)(void))
{
    int before = failures;
    printf("[ RUN      ] %s\n", name);
    fflush(stdout);
    part();
    printf("%s %s\n", failures == before ? "[       OK ]" : "[  FAILED  ]", name);
    fflush(stdout);
}

/* Its parts need a team of four by default. */
static int check_threads(void)
{
    if (omp_get_max_threads() != 4) {
        fprintf(stderr, KMP_TEST ": run with OMP_NUM_THREADS=4\n");
        return 0;
    }
    return 1;
}

/* main's end: 0 if every check held. */
static int check_end(void)
{
    if (failures != 0) {
        fprintf(stderr, KMP_TEST ": %d checks failed\n", failures);
        return 1;
    }
    printf(KMP_TEST ": every construct right\n");
    return 0;
}

#endif
