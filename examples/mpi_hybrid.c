/*
 * spool inside an MPI program: one process per rank, a spool pool in each
 * (sized by SPOOL_NUM_THREADS), the "MPI + threads" pattern of hybrid HPC
 * codes.  The kernel is a 1-D Jacobi relaxation split into one slab per
 * rank: every step each rank updates its slab with spool_for and trades one
 * halo value with each neighbour; at the end the ranks combine a dot
 * product (spool_reduce, then MPI_Allreduce).  Rank 0 then runs the same
 * computation sequentially on the whole domain and checks the result.
 *
 *   mpirun -np 2 spool_example_mpi_hybrid funneled|multiple [N] [STEPS]
 *
 * funneled: MPI_THREAD_FUNNELED; only the main thread calls MPI, between
 *   the parallel loops (which it runs through the global pool).
 * multiple: MPI_THREAD_MULTIPLE; the halo exchange itself runs on spool's
 *   workers, the two neighbours' exchanges forked with spool_join.
 * Exit status 0 if the result matches the sequential one.
 */
#include <mpi.h>
#include <spool.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slab {
    double *u, *next; /* n + 2 values: a halo at each end */
    size_t n;
    int rank, ranks;
} slab_t;

/* One Jacobi step on [b, e) of the interior (indices 1..n). */
static void relax(void *ctx, size_t b, size_t e)
{
    slab_t *s = ctx;
    for (size_t i = b; i < e; i++)
        s->next[i] = 0.5 * (s->u[i - 1] + s->u[i + 1]);
}

/* The dot product u . u over the interior, in index order. */
static void dot_identity(void *ctx, void *acc)
{
    (void)ctx;
    *(double *)acc = 0;
}
static void dot_fold(void *ctx, void *acc, size_t b, size_t e)
{
    const slab_t *s = ctx;
    double sum = *(double *)acc;
    for (size_t i = b; i < e; i++)
        sum += s->u[i] * s->u[i];
    *(double *)acc = sum;
}
static void dot_combine(void *ctx, void *left, const void *right)
{
    (void)ctx;
    *(double *)left += *(const double *)right;
}

static void exchange_left(void *arg)
{
    slab_t *s = arg;
    if (s->rank > 0)
        MPI_Sendrecv(&s->u[1], 1, MPI_DOUBLE, s->rank - 1, 0, &s->u[0], 1, MPI_DOUBLE,
                     s->rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void exchange_right(void *arg)
{
    slab_t *s = arg;
    if (s->rank < s->ranks - 1)
        MPI_Sendrecv(&s->u[s->n], 1, MPI_DOUBLE, s->rank + 1, 1, &s->u[s->n + 1], 1, MPI_DOUBLE,
                     s->rank + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* MPI_THREAD_MULTIPLE: both exchanges on workers, possibly at once. */
static void exchange_on_workers(void *arg)
{
    spool_join(exchange_left, arg, exchange_right, arg);
}

/* The starting value of point i (1..N) of the whole domain. */
static double initial(size_t i)
{
    return sin(0.001 * (double)i) + 0.25 * (double)(i % 7);
}

static const spool_for_opts_t opts = {.min_len = 4096};

int main(int argc, char **argv)
{
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    int wanted = multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, provided;
    MPI_Init_thread(&argc, &argv, wanted, &provided);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (provided < wanted) {
        if (rank == 0)
            fprintf(stderr, "mpi_hybrid: this MPI gives thread level %d, %d wanted\n", provided,
                    wanted);
        MPI_Finalize();
        return 1;
    }
    size_t total = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
    unsigned steps = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 20;
    if (total < (size_t)ranks)
        total = (size_t)ranks;
    /* Rank r's slab: [first, first + n) of the domain's 1..total. */
    size_t base = total / (size_t)ranks, extra = total % (size_t)ranks;
    slab_t s = {.rank = rank, .ranks = ranks};
    s.n = base + ((size_t)rank < extra);
    s.u = calloc(s.n + 2, sizeof *s.u);
    s.next = calloc(s.n + 2, sizeof *s.next);
    if (s.u == NULL || s.next == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    /* A start that differs everywhere (so every halo value matters from the
     * first step), and the domain's edges: 1 on the left, 0 on the right. */
    size_t first = (size_t)rank * base + ((size_t)rank < extra ? (size_t)rank : extra);
    for (size_t i = 1; i <= s.n; i++)
        s.u[i] = initial(first + i);
    if (rank == 0)
        s.u[0] = s.next[0] = 1.0;

    for (unsigned k = 0; k < steps; k++) {
        if (multiple) {
            /* Workers call MPI: from outside a pool, spool_join runs the two
             * exchanges in the global pool. */
            exchange_on_workers(&s);
        } else {
            exchange_left(&s); /* the main thread only */
            exchange_right(&s);
        }
        spool_for(1, s.n + 1, &opts, relax, &s);
        double *t = s.u;
        s.u = s.next;
        s.next = t;
    }
    const spool_reducer_t dot = {sizeof(double), dot_identity, dot_fold, dot_combine};
    double local, global;
    spool_reduce(1, s.n + 1, &opts, &dot, &s, &local);
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        /* The same relaxation on the whole domain, on this thread. */
        slab_t all = {.n = total, .rank = 0, .ranks = 1};
        all.u = calloc(total + 2, sizeof *all.u);
        all.next = calloc(total + 2, sizeof *all.next);
        for (size_t i = 1; i <= total; i++)
            all.u[i] = initial(i);
        all.u[0] = all.next[0] = 1.0;
        for (unsigned k = 0; k < steps; k++) {
            relax(&all, 1, total + 1);
            double *t = all.u;
            all.u = all.next;
            all.next = t;
        }
        double expect = 0;
        dot_fold(&all, &expect, 1, total + 1);
        ok = fabs(global - expect) <= 1e-9 * fabs(expect) + 1e-12;
        printf("mpi_hybrid: %s, %d ranks x %u threads, %zu points, %u steps: u.u = %.15g, "
               "sequential %.15g: %s\n",
               multiple ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_FUNNELED", ranks,
               spool_current_num_threads(), total, steps, global, expect,
               ok ? "match" : "MISMATCH");
        free(all.u);
        free(all.next);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(s.u);
    free(s.next);
    MPI_Finalize();
    return ok ? 0 : 1;
}
