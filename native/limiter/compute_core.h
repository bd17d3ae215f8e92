/*
 * The compute limiter's algorithms, free of I/O and clocks so that unit tests drive them with a fake
 * clock: the share a container gets on a physical NPU (strict priority classes, hard caps, weights,
 * work-conserving) and the per-kernel device-time estimator. The admission step (GCRA with debt) is
 * in compute_gcra.h.
 */
#ifndef VNPU_COMPUTE_CORE_H
#define VNPU_COMPUTE_CORE_H

#include <stdint.h>

#include "compute_gcra.h"

#define VNPU_SHARE_FULL 1000000u /* share in parts per million: the whole device */

/* One container on the device as the share computation sees it. */
struct vnpu_share_input {
    uint32_t weight;   /* 1..10000; 0 is read as 1 */
    uint32_t cap_pct;  /* 0 = none, else 1..100 */
    int32_t prio;      /* 0 = high ... larger = lower; classes are served strictly in order */
    int busy;          /* active: it takes part in the split */
    uint32_t demand_ppm; /* what it is known to use (measured device time plus headroom), ppm;
                            0 = unknown or saturated: as much as its weighted share */
};

/*
 * Sharing policies (issue 28, docs/sharing-policies.md), one per container, from its quota region's
 * VNPU_POLICY_FIXED_SHARE / _ELASTIC / _BEST_EFFORT (own) or its registry entry's VNPU_REG_EF_* (a
 * neighbour). They are expressed in the share computation's terms by vnpu_share_apply_policy:
 *   fixed-share  the weight is the share and also the cap (a cap of 0 reads as the weight, <= 100 %);
 *   elastic      the weight is the share, the cap as given (0: may borrow the whole idle chip);
 *   best-effort  the class after every guaranteed one, whatever its priority class: it gets only what
 *                the guaranteed containers leave, split by weight among the best-effort ones;
 *   as given     (no policy bit: regions and entries written before issue 28) weight, cap and class as
 *                they are.
 */
enum vnpu_share_policy {
    VNPU_SHARE_AS_GIVEN = 0,
    VNPU_SHARE_FIXED,
    VNPU_SHARE_ELASTIC,
    VNPU_SHARE_BEST_EFFORT,
};
#define VNPU_SHARE_PRIO_BEST_EFFORT 2 /* below VNPU_REG_PRIO_NORMAL (1) and VNPU_REG_PRIO_HIGH (0) */

/* The policy of a quota region's policy flags (VNPU_POLICY_*): more than one policy bit counts as
 * best-effort (never more than the writer meant). */
enum vnpu_share_policy vnpu_share_policy_of_region(uint32_t policy_flags);
/* The same for a registry entry's flags (VNPU_REG_EF_*). */
enum vnpu_share_policy vnpu_share_policy_of_entry(uint32_t entry_flags);
/* Rewrites e's cap and class for policy p (see above); weight 0 reads as 1. */
void vnpu_share_apply_policy(struct vnpu_share_input *e, enum vnpu_share_policy p);

/*
 * Share of the device (ppm) for entry self among n entries; self counts as busy and saturated
 * whatever its flags say. Classes are served from the highest (smallest prio) down: inside a class
 * the remaining capacity is split by weight among busy entries, an entry's cap or its demand clips
 * its part and the excess is split again among the others (weighted max-min water-filling: a
 * neighbour gets what it uses, up to its weighted share); capacity a class leaves unused goes to
 * the next. Returns 0 when higher classes use everything (self must wait), VNPU_SHARE_FULL when self
 * may run unthrottled (busy alone in its class and uncapped, with nobody above).
 */
uint32_t vnpu_share_ppm(const struct vnpu_share_input *in, int n, int self);

/*
 * Demand (vnpu_share_input.demand_ppm) of a neighbour that is active and not saturated, from the
 * device time it used over the last window (ppm): what it used plus headroom to grow into (a
 * sixteenth of it, at least VNPU_DEMAND_MARGIN_PPM), never 0. A neighbour that wants more than that
 * waits in its launches and is published saturated: it then gets its weighted share.
 */
#define VNPU_DEMAND_MARGIN_PPM 10000u /* 1 % of the device */
uint32_t vnpu_demand_ppm(uint32_t used_ppm);

/*
 * Device-time estimator of one kernel key: the smallest sample of the last window (3 s).
 * A measured span (event before the launch to event after it) is the kernel's own device time plus
 * any time it queued behind other containers' kernels; queueing only ever adds. While a neighbour
 * keeps the device busy most samples are inflated, but now and then one finds the queue empty, and
 * the minimum over a window that is long compared with those gaps is the uncontended time. The
 * window is kept as VNPU_COST_BUCKETS minima of VNPU_COST_BUCKET_NS each, so a kernel that really
 * became slower is followed within one window. Bias: kernels whose duration varies under one key are
 * charged their shortest run.
 */
#define VNPU_COST_BUCKETS 30 /* 3 s: on a saturated device clean spans are rare (issue 23) */
#define VNPU_COST_BUCKET_NS 100000000LL /* 100 ms */
struct vnpu_cost_window {
    uint64_t est;                        /* current estimate, ns (0 before the first sample) */
    int64_t bucket_start;                /* CLOCK_MONOTONIC ns the current bucket began */
    uint32_t cur;                        /* index of the current bucket */
    uint64_t mins[VNPU_COST_BUCKETS];    /* per-bucket minimum, 0 = empty */
};
/* Adds a sample (ns; 0 counts as 1) measured at now (ns) and returns the new estimate. */
uint64_t vnpu_cost_add(struct vnpu_cost_window *w, int64_t now, uint64_t sample_ns);

#endif
