/* Internal state of the simulated CANN runtime (libruntime.so); not installed, not an API. */
#ifndef VNPU_CANN_SIM_INTERNAL_H
#define VNPU_CANN_SIM_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"
#include "vnpu_sim_host.h"

#define SIM_HIDDEN __attribute__((visibility("hidden")))

/* The simulated host as seen by this process: device facts and the shared files it maps. */
struct sim_host {
    int ndev;
    struct vnpu_sim_device_info dev[VNPU_SIM_MAX_DEVICES];
    char root[512];
    uint64_t *hbm_used;                  /* hbm.bin, VNPU_SIM_MAX_DEVICES counters */
    struct vnpu_sim_device_time *dtime;  /* device-time.bin */
};

/* Returns the host (mapped on first use) or NULL when the simulated host cannot be set up. */
SIM_HIDDEN struct sim_host *sim_host(void);
SIM_HIDDEN uint64_t sim_now_ns(void);
SIM_HIDDEN void sim_sleep_until(uint64_t deadline_ns);
/* Sleeps until end_ns, but no longer than timeout_ms when it is > 0 (0 and -1: no limit, as the
 * runtime's synchronize calls): RT_ERROR_NONE, or ACL_ERROR_RT_STREAM_SYNC_TIMEOUT once it passed. */
SIM_HIDDEN rtError_t sim_sync_until(uint64_t end_ns, int32_t timeout_ms);
SIM_HIDDEN void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Current device of the calling thread (-1 when none) and the validation of a device ID. */
SIM_HIDDEN int sim_current_device(void);
SIM_HIDDEN void sim_set_current_device(int dev); /* -1: none */
SIM_HIDDEN void sim_ctx_on_set_device(int dev);
SIM_HIDDEN int sim_valid_device(int32_t dev); /* a device ID of the host (after the visibility mask) */
/* The host device behind a device ID as the process numbers it (ASCEND_RT_VISIBLE_DEVICES), -1 if none. */
SIM_HIDDEN int sim_phys_device(int32_t dev);
/* The process's ID of host device phys, -1 when the process does not see it. */
SIM_HIDDEN int sim_user_device(int phys);

/* Per-process usage record ("procs/<pid>"), reclaimed by others when this process dies. */
SIM_HIDDEN int sim_usage_charge(int dev, uint64_t bytes);   /* 0 or ACL error (207001 when full) */
SIM_HIDDEN void sim_usage_release(int dev, uint64_t bytes);
SIM_HIDDEN uint64_t sim_usage_own(int dev);
SIM_HIDDEN void sim_usage_reap_dead(void);

/* Device timeline: schedules `duration_ns` on `dev` no earlier than `ready_ns`; returns the end. */
SIM_HIDDEN uint64_t sim_device_schedule(int dev, uint64_t ready_ns, uint64_t duration_ns);

/* Contexts (rt_context.c), handles compared and never dereferenced elsewhere: the calling thread's
 * current one as set (NULL: none; it may have been destroyed by another thread since, so only
 * compare it with a live object's context), the same validated (NULL when destroyed), and the
 * primary context of host device dev. */
SIM_HIDDEN const void *sim_ctx_current(void);
SIM_HIDDEN const void *sim_ctx_live_current(void);
SIM_HIDDEN const void *sim_ctx_primary(int dev);

/* Memory, streams: per-process tables. A device reset with the last reference frees the device's
 * memory and its primary context's streams and models; a destroyed context frees its own. */
SIM_HIDDEN void sim_mem_release_device(int dev);
SIM_HIDDEN void sim_streams_release_device(int dev);
SIM_HIDDEN void sim_streams_release_ctx(const void *ctx);
SIM_HIDDEN uint64_t sim_streams_tail(int dev);

#endif
