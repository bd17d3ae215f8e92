/*
 * The compute limiter of libvnpu.so: throttles kernel launches so that a container gets its share of
 * a physical NPU's AI-core time (hard cap, weights, strict priority; docs/compute-registry.md).
 *
 * Hooks (hooks_launch.c) bracket every launch with vnpu_compute_before / vnpu_compute_after. Small
 * charges are summed per thread and added to the container's GCRA word with one compare-and-swap
 * per batch (compute_gcra.h); a launch the open batch admits is decided on a fast path (compute.c,
 * launch_fast) that reads neither the clock nor the word and makes no atomic read-modify-write, and
 * the clock is read once per CLOCK_REUSE launches or measurement tick; no lock, no system call. Device time is measured off the application thread: now and then a launch is
 * bracketed by two events and the measurement thread (started on the first launch only, so
 * processes that never launch stay inert) reads their elapsed time. Every wait is bounded and any
 * trouble with the registry makes the limiter run unthrottled (compute fails open).
 */
#ifndef VNPU_COMPUTE_H
#define VNPU_COMPUTE_H

#include <stdint.h>

#include "launch_abi.h"
#include "vnpu_region.h"
#include "vnpu_registry.h"

#define VNPU_COMPUTE_MAX_DEVICES 16

/* Every launch entry point of limiter-design.md 5.3, in the order of the per-symbol counters. */
#define VNPU_LAUNCH_SYMBOLS(X)                                                                       \
    X(rtKernelLaunch) X(rtKernelLaunchWithFlag) X(rtKernelLaunchWithFlagV2) X(rtKernelLaunchWithHandle) \
    X(rtKernelLaunchWithHandleV2) X(rtKernelLaunchEx) X(rtKernelLaunchFwk) X(rtAicpuKernelLaunchWithFlag) \
    X(rtAicpuKernelLaunchExWithArgs) X(rtCpuKernelLaunchWithFlag) X(rtVectorCoreKernelLaunch)         \
    X(rtVectorCoreKernelLaunchWithHandle) X(rtLaunchKernelByFuncHandle) X(rtLaunchKernelByFuncHandleV2) \
    X(rtLaunchKernelByFuncHandleV3) X(rtsLaunchKernelWithConfig) X(rtsLaunchKernelWithDevArgs)         \
    X(rtsLaunchKernelWithHostArgs) X(rtsLaunchCpuKernel) X(rtLaunchKernelWithArgsArray) X(rtModelExecute) \
    X(rtModelExecuteSync) X(rtsModelExecute)

#define VNPU_SYM_ENUM_(name) VNPU_SYM_##name,
enum vnpu_launch_symbol { VNPU_LAUNCH_SYMBOLS(VNPU_SYM_ENUM_) VNPU_SYM_COUNT };
_Static_assert(VNPU_SYM_COUNT <= VNPU_REG_SYMBOL_COUNT, "per-symbol counters must fit the registry entry");

/* Symbol names, indexed by enum vnpu_launch_symbol. */
extern const char *const vnpu_launch_symbol_names[VNPU_SYM_COUNT];

/* What the container is configured with (from the quota region, see compute_config.c). */
struct vnpu_compute_device_config {
    int32_t phys_id;   /* names the registry file; < 0: this device is not coordinated */
    uint32_t weight;   /* 1..10000 */
    uint32_t cap_pct;  /* 0..100 */
    int32_t prio;      /* VNPU_REG_PRIO_* */
};
struct vnpu_compute_config {
    int enabled;                   /* 0: compute limiting off, all launches pass through */
    char registry_dir[256];        /* directory of the npu<phyId>.reg files */
    uint64_t key;                  /* container key (quota region epoch) */
    char name[VNPU_REG_NAME_BYTES];
    uint32_t share_policy;         /* enum vnpu_share_policy of the region's VNPU_POLICY_* (issue 28) */
    uint32_t device_count;         /* logical devices configured */
    struct vnpu_compute_device_config dev[VNPU_COMPUTE_MAX_DEVICES];
    uint32_t version;              /* vnpu_compute_config_version() this configuration was read at */
};

/*
 * Provided by the integration (compute_config.c reads the quota region; tests provide their own):
 * fills *out and returns 0, or returns -1 when there is no configuration (compute stays off).
 * Called on the first launch, and again by the measurement thread whenever
 * vnpu_compute_config_version() moved (a live resize: only weight, cap and priority class are taken
 * from a later read; whether compute is enforced, the registry and the devices stay as first read).
 */
int vnpu_compute_load_config(struct vnpu_compute_config *out);

/*
 * Provided by the integration: a number that changes whenever the configuration may have changed, odd
 * while it is being written (the quota region's config_seq). The measurement thread reads it once per
 * share computation (every 5 ms); launches never read it.
 */
uint32_t vnpu_compute_config_version(void);

/* Statistics deltas of one publication (every 5 ms) for one logical device. */
struct vnpu_compute_stats {
    uint64_t launches, throttled_ns, busy_ns, samples;
    uint64_t cost_ns;      /* latest estimate (a value, not a delta) */
    uint32_t share_ppm;    /* share last computed (a value) */
    int64_t active_ns;     /* CLOCK_MONOTONIC ns: launches in flight now, 0 = none */
    uint64_t blocked_ns;   /* time since the last publication if a launch wanted more than it got at this
                              one (inside the runtime behind a full stream, or waiting for its share; not
                              repaying a long execution's debt), else 0: sampled, the agent's saturation signal */
    uint64_t sym_launches[VNPU_SYM_COUNT];
};

/*
 * Provided by the integration (compute_config.c: the own quota region): called by the measurement
 * thread after each publication for logical device dev.
 */
void vnpu_compute_publish_region(uint32_t dev, const struct vnpu_compute_stats *delta);

/*
 * Provided by the integration: the number of launch-like entry points the loaded runtime exports and
 * the limiter does not hook, found once by the measurement thread (the slice's compute share is not
 * fully enforced when > 0; vnpu-quota reports it).
 */
void vnpu_compute_report_unhooked(uint32_t count);

/*
 * Provided by the integration: the configuration's device index of the device this process numbers
 * proc_dev (processes may renumber devices with ASCEND_RT_VISIBLE_DEVICES); >= device_count when the
 * configuration does not describe it.
 */
uint32_t vnpu_compute_map_device(uint32_t proc_dev);

/*
 * Provided by the integration: address of the 64-bit word at VNPU_DS_* offset off of logical device
 * dev's live state in the own quota region (per container: GCRA tat, activity time), NULL when the
 * region does not describe dev.
 */
void *vnpu_compute_region_word(uint32_t dev, unsigned off);

/* Per-launch state kept on the hook's stack between before and after. */
struct vnpu_launch {
    int sampled;
    rtEvent_t pre;
    rtEvent_t post;
    void *cost;    /* cost-table entry of the kernel key, NULL if none */
    rtStream_t stream;
    uint32_t dev;
    int64_t *in_call_since; /* the thread's in-flight marker, cleared after the call; NULL if none */
    int sync;      /* set by vnpu_compute_before_sync: no event bracket */
    int sym;       /* enum vnpu_launch_symbol */
    uint64_t charged; /* device ns charged */
    uint64_t key;     /* kernel key */
    uint32_t share;   /* share at launch, ppm */
    int64_t host_ns;  /* sampled: CLOCK_MONOTONIC ns the pre event was recorded, then the host time
                         until the post event's record */
};

/* Address of a runtime function: the next definition after libvnpu.so, else libruntime.so's own
 * (loaded RTLD_LOCAL by a framework). NULL when the loaded runtime lacks it. */
void *vnpu_rt_resolve(const char *name);

/* Key of a kernel for the device-time estimate: symbol, function/handle and launch geometry. */
uint64_t vnpu_kernel_key(int sym, const void *fn, uint64_t tiling_key, uint32_t num_blocks);

/*
 * Whether compute limiting is on in this process, decided on the first launch (config_on in
 * compute.c) and never changed after: VNPU_COMPUTE_CFG_UNKNOWN until then. The hooks read it before
 * anything else, so that with limiting off a launch costs one load and compare on top of the real
 * call (a tail call: issue 29).
 */
enum { VNPU_COMPUTE_CFG_UNKNOWN = 0, VNPU_COMPUTE_CFG_ON = 1, VNPU_COMPUTE_CFG_OFF = 2 };
extern int vnpu_compute_cfg_state;
static inline int vnpu_compute_off(void)
{
    return __atomic_load_n(&vnpu_compute_cfg_state, __ATOMIC_RELAXED) == VNPU_COMPUTE_CFG_OFF;
}

/* Throttles (bounded) before a launch; never fails. */
void vnpu_compute_before(struct vnpu_launch *l, int sym, uint64_t key, rtStream_t stm);
/* The launch's measurement bracket after the real launch returned rc (vnpu_compute_after). */
void vnpu_compute_after_sampled(struct vnpu_launch *l, rtError_t rc);
/* After the real launch returned rc: the launch is no longer in flight; completes the measurement
 * bracket if it has one (a few launches per kernel key and 2 ms). Inline: a store and a test. */
static inline void vnpu_compute_after(struct vnpu_launch *l, rtError_t rc)
{
    if (l->in_call_since)
        __atomic_store_n(l->in_call_since, 0, __ATOMIC_RELAXED);
    if (__builtin_expect(l->sampled, 0))
        vnpu_compute_after_sampled(l, rc);
}

/*
 * For synchronous entry points without a stream argument (rtsModelExecute runs the model on its own
 * stream and waits): throttle like vnpu_compute_before but bracket nothing; after the call, the
 * measured wall time (>= the device time) is the sample.
 */
void vnpu_compute_before_sync(struct vnpu_launch *l, int sym, uint64_t key);
void vnpu_compute_after_sync(struct vnpu_launch *l, rtError_t rc, int64_t elapsed_ns);

/* Capture / model-building streams: launches on them are recorded, not run, and are not charged.
 * mdl: the model the stream is bound to (NULL while capturing). */
void vnpu_compute_stream_special(rtStream_t stm, rtModel_t mdl, int on);
/* A destroyed stream (stm) or model (mdl, with every stream bound to it) is no longer special. */
void vnpu_compute_forget(rtStream_t stm, rtModel_t mdl);
/* The runtime destroyed streams (rtStreamDestroy, rtModelDestroy): their handles may come back
 * naming streams of another device, so what the launch path remembers of a handle's device is
 * dropped. Call after the real call. */
void vnpu_compute_streams_gone(void);
/*
 * The runtime tore down a context and every stream and model it owned, without a destroy call for
 * any of them: rtCtxDestroy[Ex] of user context ctx, or (ctx NULL) the reset that released the
 * primary context of the process's device proc_dev. Their handles may come back naming another
 * device's streams: the launch path forgets what it remembers of them (as vnpu_compute_streams_gone),
 * bindings made in that context (or, for a reset, on that device) are no longer special, and the
 * measurement thread stops borrowing the context. Call after the real call succeeded.
 */
void vnpu_compute_context_gone(rtContext_t ctx, int32_t proc_dev);
/* Before the real rtCtxDestroy[Ex] of ctx: the measurement thread stops borrowing it, so that it
 * hardly ever hands the runtime a context being destroyed (the runtime checks its live contexts). */
void vnpu_compute_context_going(rtContext_t ctx);

/* Logs once per symbol that a launch arrived through a hook whose real function is missing. */
void vnpu_compute_missing_symbol(int sym);

/* Test support: the share the limiter currently uses on dev (ppm) and the cost estimate of key. */
uint32_t vnpu_compute_share_ppm(uint32_t dev);
uint64_t vnpu_compute_cost_ns(uint64_t key);

#endif
