/*
 * Simulator-only conventions of the simulated CANN runtime (native/cann-sim): how a workload tells
 * the simulated device how long a kernel runs, and the layout of the ground-truth files tests read.
 * Test tooling only: the limiter (libvnpu.so) must never include this header nor read these files.
 * See native/cann-sim/README.md.
 */
#ifndef VNPU_CANN_SIM_H
#define VNPU_CANN_SIM_H

#include <stdint.h>

/*
 * Kernel duration encoding. A launch whose host argument block (rtKernelLaunch `args`,
 * rtArgsEx_t.args, aclrtLaunchKernel `argsData`, ...) is at least 16 bytes long and starts with
 * this header occupies the device for duration_ns. Any other launch (or one whose arguments live in
 * device memory or behind an args handle) runs for the default duration: $VNPU_SIM_KERNEL_NS, or
 * VNPU_SIM_DEFAULT_KERNEL_NS when unset.
 */
#define VNPU_SIM_KERNEL_MAGIC 0x4b4e524b4d495356ULL /* "VSIMKRNK" little-endian */
#define VNPU_SIM_DEFAULT_KERNEL_NS 20000ULL
#define VNPU_SIM_MAX_KERNEL_NS 10000000000ULL /* 10 s; longer values are clamped */

struct vnpu_sim_kernel_args {
    uint64_t magic;       /* VNPU_SIM_KERNEL_MAGIC */
    uint64_t duration_ns; /* device time the kernel occupies, exclusively */
};

/*
 * Simulated offline model (the `model` buffer of aclmdlLoadFromMem): a header followed by nothing
 * else. Loading builds a runtime model of `kernels` tasks of `kernel_ns` each (captured through a
 * stream bound with rtModelBindStream, as GE does); one execution occupies the device for
 * kernels * kernel_ns.
 */
#define VNPU_SIM_MODEL_MAGIC 0x4c444f4d4d495356ULL /* "VSIMMODL" little-endian */

struct vnpu_sim_model_blob {
    uint64_t magic;     /* VNPU_SIM_MODEL_MAGIC */
    uint32_t kernels;   /* tasks in the model, >= 1 */
    uint32_t reserved;  /* 0 */
    uint64_t kernel_ns; /* duration of each task */
};

/*
 * Device timeline, "$VNPU_SIM_ROOT/device-time.bin": VNPU_SIM_MAX_DEVICES records indexed by
 * logic ID, shared by every process of the simulated host through MAP_SHARED and updated with
 * __atomic operations. Times are CLOCK_MONOTONIC nanoseconds.
 */
struct vnpu_sim_device_time {
    uint64_t busy_until_ns; /* end of the last task scheduled on the device (CAS-advanced) */
    uint64_t busy_ns;       /* total device time scheduled, all processes */
    uint64_t tasks;         /* kernels and model executions scheduled */
    uint64_t boot_tag;      /* hash of the kernel boot_id: a record from an earlier boot is reset */
    uint64_t reserved[4];
};

/*
 * HBM held per process, "$VNPU_SIM_ROOT/procs/<pid>-<start ns>": written by that process only
 * (atomic ops through MAP_SHARED); the owner holds a POSIX write lock (F_WRLCK, whole file) on it for
 * its lifetime. A record whose lock is free belongs to a dead process: the next allocation or memory
 * query moves its bytes out of hbm.bin, sets `reaped` and unlinks it. A reader wanting live
 * per-process usage (e.g. dcmi_get_device_resource_info) takes records with magic set, reaped == 0
 * and a lock held by another process (F_GETLK).
 */
#define VNPU_SIM_PROC_USAGE_MAGIC 0x4547415355444d53ULL /* "SMDUSAGE" little-endian */

struct vnpu_sim_proc_usage {
    uint64_t magic;    /* VNPU_SIM_PROC_USAGE_MAGIC */
    int32_t pid;
    uint32_t reaped;   /* 1 once its bytes left hbm.bin */
    uint64_t used[16]; /* bytes held per logic ID (VNPU_SIM_MAX_DEVICES) */
};

/*
 * Ground truth per process and device, "$VNPU_SIM_ROOT/busy/<pid>-<logic id>": one record, written
 * only by that process (atomic stores), readable at any time. busy_ns counts every task the process
 * has scheduled, including queued ones that have not run yet; once the process synchronised its
 * streams (or exited) it is exactly the device time the process used. `cann-sim-busy` prints them.
 */
#define VNPU_SIM_BUSY_MAGIC 0x5953554244494d53ULL /* "SMIDBUSY" little-endian */

struct vnpu_sim_busy_record {
    uint64_t magic;          /* VNPU_SIM_BUSY_MAGIC */
    int32_t pid;
    int32_t logic_id;
    uint64_t busy_ns;        /* device time of this process's tasks */
    uint64_t tasks;          /* kernels + model executions */
    uint64_t first_start_ns; /* start of its first task (0: none yet) */
    uint64_t last_end_ns;    /* end of its latest task */
    uint64_t reserved[2];
};

/*
 * Task timeline per process and device, "$VNPU_SIM_ROOT/tasks/<pid>-<logic id>", written only when
 * VNPU_SIM_TASK_RING is set (test harnesses; it costs a 6 MiB sparse file and a few stores per
 * task): the start and end of the process's latest VNPU_SIM_TASK_RING_SLOTS tasks, so that a reader
 * can compute exactly how much device time each process used in any window [t1, t2] that the ring
 * still covers (`cann-sim-busy --window T1 T2`), whatever was queued but had not run yet.
 * Slot i % SLOTS holds task i; seq is 2 i + 1 while it is written and 2 i + 2 once complete.
 */
#define VNPU_SIM_TASK_RING_MAGIC 0x474e495253534d53ULL /* "SMSSRING" little-endian */
#define VNPU_SIM_TASK_RING_SLOTS 262144u

struct vnpu_sim_task_slot {
    uint64_t seq;
    uint64_t start_ns;
    uint64_t end_ns;
};

struct vnpu_sim_task_ring {
    uint64_t magic;  /* VNPU_SIM_TASK_RING_MAGIC */
    int32_t pid;
    int32_t logic_id;
    uint64_t next;   /* tasks recorded so far (index of the next one) */
    uint64_t reserved[5];
    struct vnpu_sim_task_slot slot[VNPU_SIM_TASK_RING_SLOTS];
};

#endif
