/* The device constructs with no device (omp.md, "Target regions"): a
 * target region runs on the encountering thread as the initial thread of
 * a new contention group, as libgomp's host fallback runs it, and the data
 * constructs map nothing, since the host's memory is the device's. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"
#include "gomp_abi.h"
#include "target.h"
#include "task.h"
#include "team.h"
#include "work.h"

/* gcc's map kinds (the low byte of a kind; the high byte of the
 * GOMP_target_ext form is the log2 of the alignment) and target
 * arguments, as gomp-constants.h numbers them. */
enum {
    MAP_FIRSTPRIVATE = 12,
    ARG_DEVICE_MASK = (1 << 7) - 1,
    ARG_DEVICE_ALL = 0,
    ARG_SUBSEQUENT_PARAM = 1 << 7,
    ARG_ID_MASK = ((1 << 8) - 1) << 8,
    ARG_THREAD_LIMIT = 2 << 8,
    ARG_VALUE_SHIFT = 16,
};

int spool__omp_target_offload(void)
{
    /* Read at each construct, not cached: the constructs are rare, and
     * the value is the process's environment when it runs one. */
    const char *v = spool__omp_getenv("OMP_TARGET_OFFLOAD");
    if (v == NULL || *v == '\0' || strcasecmp(v, "default") == 0)
        return SPOOL_OMP_OFFLOAD_DEFAULT;
    if (strcasecmp(v, "mandatory") == 0)
        return SPOOL_OMP_OFFLOAD_MANDATORY;
    if (strcasecmp(v, "disabled") == 0)
        return SPOOL_OMP_OFFLOAD_DISABLED;
    return SPOOL_OMP_OFFLOAD_DEFAULT;
}

/* gcc's device numbers: the default device (default-device-var), and the
 * host asked for by a construct whose if clause is false. */
#define DEVICE_ICV (-1)
#define DEVICE_HOST_FALLBACK (-2)

/* A device construct may run on the host unless OMP_TARGET_OFFLOAD is
 * mandatory and it asks for a device that is not the host: as libgomp with
 * no device, the host is if(false), or the initial device, also as the
 * default device (0, the number of devices, until omp_set_default_device
 * or OMP_DEFAULT_DEVICE says otherwise). */
static void host_allowed(const char *what, int device)
{
    if (device == DEVICE_ICV)
        device = spool__omp_icv()->default_device;
    if (device != DEVICE_HOST_FALLBACK && device != omp_get_initial_device() &&
        spool__omp_target_offload() == SPOOL_OMP_OFFLOAD_MANDATORY)
        spool__omp_fatal("%s: OMP_TARGET_OFFLOAD=mandatory, but device %d is not found "
                         "(libspool-omp has none: it runs target regions on the host)",
                         what, device);
}

/* thread_limit of a GOMP_target_ext argument list, or 0 for none. */
static unsigned thread_limit_arg(void **args)
{
    if (args == NULL)
        return 0;
    while (*args != NULL) {
        intptr_t id = (intptr_t)*args++, val;
        if (id & ARG_SUBSEQUENT_PARAM)
            val = (intptr_t)*args++;
        else
            val = id >> ARG_VALUE_SHIFT;
        if ((id & ARG_DEVICE_MASK) != ARG_DEVICE_ALL || (id & ARG_ID_MASK) != ARG_THREAD_LIMIT)
            continue;
        return val <= 0 ? 0 : val > INT_MAX ? INT_MAX : (unsigned)val;
    }
    return 0;
}

static size_t align_up(size_t at, size_t align)
{
    return (at + align - 1) & ~(align - 1);
}

/* A GOMP_target_ext map kind's alignment: 2 to the power of its high byte. */
static size_t kind_align(unsigned short kind)
{
    return (size_t)1 << (kind >> 8);
}

/* Where the next firstprivate copy goes in the block, after at bytes. */
static size_t firstprivate_at(size_t at, unsigned short kind)
{
    return align_up(at, kind_align(kind));
}

/* Runs fn(hostaddrs) as the initial thread of a new contention group:
 * no team, level 0, the environment's ICVs; the thread's state is back as
 * it was afterwards. */
static void run_on_host(void (*fn)(void *), void **hostaddrs, unsigned thread_limit)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_ts_t saved_ts = thr->ts;
    spool__omp_task_t *saved_task = thr->task;
    /* An orphaned construct around the target region keeps its own work
     * share: the region's orphaned constructs get another. */
    spool__omp_ws_t *saved_solo = thr->solo;
    spool__omp_icv_t icv = spool__omp_env.icv;
    if (thread_limit != 0)
        icv.thread_limit = thread_limit;
    spool__omp_tnode_t initial;
    spool__omp_task_root_init(&initial, &icv);
    memset(&thr->ts, 0, sizeof thr->ts);
    thr->ts.ticket = -1;
    thr->task = &initial.base;
    thr->solo = NULL;
    bool saved_under = thr->under_region;
    thr->under_region = saved_under || saved_ts.team != NULL;
    fn(hostaddrs);
    thr->under_region = saved_under;
    spool__omp_task_root_end(&initial);
    free(thr->solo);
    thr->solo = saved_solo;
    thr->task = saved_task;
    thr->ts = saved_ts;
}

SPOOL_OMP_API void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                               void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)sizes, (void)kinds;
    host_allowed("GOMP_target", device);
    run_on_host(fn, hostaddrs, 0);
}

SPOOL_OMP_API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum,
                                   void **hostaddrs, size_t *sizes, unsigned short *kinds,
                                   unsigned int flags, void **depend, void **args)
{
    /* nowait and depend: the region runs at once, as an undeferred task
     * after the siblings its dependences name. */
    (void)flags;
    host_allowed("GOMP_target_ext", device);
    if (depend != NULL)
        GOMP_taskwait_depend(depend);
    /* firstprivate variables: the region gets copies (its writes stay in
     * them), each at its alignment, in one block. */
    size_t total = 0, align_max = 1;
    for (size_t i = 0; i < mapnum; i++)
        if ((kinds[i] & 0xff) == MAP_FIRSTPRIVATE) {
            total = firstprivate_at(total, kinds[i]) + sizes[i];
            if (kind_align(kinds[i]) > align_max)
                align_max = kind_align(kinds[i]);
        }
    void **addrs = hostaddrs;
    char *block = NULL;
    if (total > 0) {
        /* hostaddrs is the caller's array: a copy of it points at the
         * copies. */
        addrs = malloc(mapnum * sizeof *addrs);
        block = aligned_alloc(align_max, align_up(total, align_max));
        if (addrs == NULL || block == NULL)
            spool__omp_fatal("out of memory for a target region's firstprivate copies");
        size_t at = 0;
        for (size_t i = 0; i < mapnum; i++) {
            addrs[i] = hostaddrs[i];
            if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE)
                continue;
            at = firstprivate_at(at, kinds[i]);
            memcpy(block + at, hostaddrs[i], sizes[i]);
            addrs[i] = block + at;
            at += sizes[i];
        }
    }
    run_on_host(fn, addrs, thread_limit_arg(args));
    if (addrs != hostaddrs)
        free(addrs);
    free(block);
}

/* The data constructs: nothing to map or copy on the host. */

SPOOL_OMP_API void GOMP_target_data(int device, const void *unused, size_t mapnum,
                                    void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    host_allowed("GOMP_target_data", device);
}

SPOOL_OMP_API void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    host_allowed("GOMP_target_data_ext", device);
}

SPOOL_OMP_API void GOMP_target_end_data(void)
{
}

SPOOL_OMP_API void GOMP_target_update(int device, const void *unused, size_t mapnum,
                                      void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    host_allowed("GOMP_target_update", device);
}

SPOOL_OMP_API void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
                                          size_t *sizes, unsigned short *kinds,
                                          unsigned int flags, void **depend)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    host_allowed("GOMP_target_update_ext", device);
    if (depend != NULL)
        GOMP_taskwait_depend(depend);
}

SPOOL_OMP_API void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                               size_t *sizes, unsigned short *kinds,
                                               unsigned int flags, void **depend)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    host_allowed("GOMP_target_enter_exit_data", device);
    if (depend != NULL)
        GOMP_taskwait_depend(depend);
}
