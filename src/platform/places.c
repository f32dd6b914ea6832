/* Worker placement: the places string and pinning (see places.h). */
#define _GNU_SOURCE /* cpu_set_t, pthread_attr_setaffinity_np */
#include "platform/places.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CPUs the calling thread may run on, in increasing order, into cpus
 * (room for max); how many, or -1 if the system cannot say. */
static int allowed_cpus(int *cpus, int max)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
#else
    (void)cpus;
    (void)max;
    return -1;
#endif
}

static bool is_allowed(const int *allowed, int n, long cpu)
{
    if (n < 0)
        return cpu >= 0; /* no mask to check against */
    for (int i = 0; i < n; i++)
        if (allowed[i] == cpu)
            return true;
    return false;
}

/* Reads a CPU number at *p (digits only); false if there is none. */
static bool read_cpu(const char **p, long *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > 1 << 20)
            return false;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

enum { MAX_CPUS = 4096 };

int spool__places_parse(const char *places, int **cpus_out, unsigned *count_out)
{
    *cpus_out = NULL;
    *count_out = 0;
    if (places == NULL)
        return 0;
    int *allowed = malloc(MAX_CPUS * sizeof *allowed);
    int *cpus = malloc(MAX_CPUS * sizeof *cpus);
    if (allowed == NULL || cpus == NULL) {
        free(allowed);
        free(cpus);
        return ENOMEM;
    }
    int nallowed = allowed_cpus(allowed, MAX_CPUS);
    unsigned n = 0;
    int err = 0;
    if (strcmp(places, "cores") == 0) {
        if (nallowed > 0) { /* else no mask to follow: no pinning */
            memcpy(cpus, allowed, (size_t)nallowed * sizeof *cpus);
            n = (unsigned)nallowed;
        }
    } else {
        const char *p = places;
        for (;;) {
            long first, last;
            if (!read_cpu(&p, &first)) {
                err = EINVAL;
                break;
            }
            last = first;
            if (*p == '-') {
                p++;
                if (!read_cpu(&p, &last) || last < first) {
                    err = EINVAL;
                    break;
                }
            }
            for (long c = first; c <= last && err == 0; c++) {
                if (!is_allowed(allowed, nallowed, c) || n == MAX_CPUS)
                    err = EINVAL;
                else
                    cpus[n++] = (int)c;
            }
            if (err != 0 || *p == '\0')
                break;
            if (*p != ',') {
                err = EINVAL;
                break;
            }
            p++;
        }
    }
    free(allowed);
    if (err != 0 || n == 0) {
        free(cpus);
        return err;
    }
    *cpus_out = cpus;
    *count_out = n;
    return 0;
}

int spool__places_pin(pthread_attr_t *attr, int cpu)
{
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_attr_setaffinity_np(attr, sizeof set, &set);
#else
    (void)attr;
    (void)cpu;
    return 0;
#endif
}

unsigned spool__places_cpu_count(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 0;
}
