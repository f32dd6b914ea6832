/* Internal: worker placement (spool_config_t's places, SPOOL_PLACES). */
#ifndef SPOOL_PLACES_H
#define SPOOL_PLACES_H

#include <pthread.h>

/* Parses places ("cores", or a list such as "0-3,8,10") into *cpus (a new
 * array of *count CPU numbers, in order), checking each against the
 * calling thread's affinity mask.  NULL: no pinning (*cpus NULL, *count
 * 0).  0, EINVAL or ENOMEM. */
int spool__places_parse(const char *places, int **cpus, unsigned *count);

/* Sets attr so that a thread created with it runs on cpu only (Linux); 0 or
 * an errno value.  Elsewhere nothing is done. */
int spool__places_pin(pthread_attr_t *attr, int cpu);

/* How many CPUs the calling thread may run on (its affinity mask where the
 * system has one, else the CPUs online); 0 if the system cannot say. */
unsigned spool__places_cpu_count(void);

#endif
