/*
 * vnpu quota region, layout "HVNP" major 1 minor 4: the per-container file shared by every process
 * of the container (through the limiter libvnpu.so), the node agent and the Java library vnpu-quota.
 *
 * This header is the single source of truth for offsets. docs/region-layout.md explains the
 * protocols; vnpu-quota's RegionLayout repeats the constants and a conformance test compares them
 * with the output of native/limiter/region_offsets.c.
 *
 * Rules every reader and writer follows:
 *  - all integers little-endian and naturally aligned; u64 counters are accessed with 64-bit atomics
 *    (C __atomic_*, Java VarHandle volatile/CAS) and never with plain loads when other processes write;
 *  - a reader refuses a file whose magic differs, whose major differs, whose file_bytes is smaller than
 *    the size it knows for its minor, or whose init_state is not READY;
 *  - minor versions only add fields inside space marked reserved here (reserved space is zero);
 *  - the advisory record-lock bytes (VNPU_LOCK_*) lie beyond EOF: they are never mapped.
 */
#ifndef VNPU_REGION_H
#define VNPU_REGION_H

#include <stdint.h>

/* ---------- identity ---------- */
#define VNPU_REGION_MAGIC        0x31504E56494D4148ULL /* ASCII "HAMIVNP1" read as LE u64 */
#define VNPU_REGION_MAJOR        1u
#define VNPU_REGION_MINOR        4u /* 1: compute statistics and activity (issue 12); 2: blocked_ns (issue 23);
                                       3: sized_by (issue 28); 4: admissions no longer written, commit_seq
                                       counts every admission (issue 29: one atomic less per allocation) */
#define VNPU_REGION_MAX_DEVICES  16u
#define VNPU_REGION_SLOT_COUNT   256u
#define VNPU_REGION_UUID_BYTES   64u  /* NUL-padded device UUID as the device plugin reports it */
#define VNPU_REGION_PATH_BYTES   256u /* NUL-padded path */

/* ---------- file geometry ---------- */
#define VNPU_HDR_BYTES           4096u
#define VNPU_DEVCFG_OFF          1024u  /* device config table inside the header page */
#define VNPU_DEVCFG_BYTES        128u
#define VNPU_DEVSTATE_OFF        4096u  /* per-device live state */
#define VNPU_DEVSTATE_BYTES      256u
#define VNPU_SLOTS_OFF           8192u  /* process slots */
#define VNPU_SLOT_BYTES          512u
#define VNPU_REGION_FILE_BYTES   (VNPU_SLOTS_OFF + VNPU_REGION_SLOT_COUNT * VNPU_SLOT_BYTES) /* 139264 */

/* ---------- header (offsets from 0) ---------- */
#define VNPU_H_MAGIC             0u   /* u64 VNPU_REGION_MAGIC, written last-but-one (before READY) */
#define VNPU_H_MAJOR             8u   /* u16 */
#define VNPU_H_MINOR             10u  /* u16 */
#define VNPU_H_HEADER_BYTES      12u  /* u32 = VNPU_HDR_BYTES */
#define VNPU_H_FILE_BYTES        16u  /* u64 = size the writer's minor needs */
#define VNPU_H_INIT_STATE        24u  /* u32 VNPU_INIT_* */
#define VNPU_H_DEVICE_COUNT      28u  /* u32 devices configured (1..16); index = logical device ID */
#define VNPU_H_SLOT_COUNT        32u  /* u32 = VNPU_REGION_SLOT_COUNT */
#define VNPU_H_SLOT_BYTES        36u  /* u32 = VNPU_SLOT_BYTES */
#define VNPU_H_EPOCH             40u  /* u64 random non-zero, new at every initialisation */
#define VNPU_H_CREATED_NS        48u  /* u64 CLOCK_REALTIME ns at initialisation */
#define VNPU_H_POLICY_FLAGS      56u  /* u32 VNPU_POLICY_* */
#define VNPU_H_CONFIG_SEQ        60u  /* u32 seqlock over policy flags + device config: odd while written */
#define VNPU_H_SLOT_HWM          64u  /* u32 one past the highest slot index ever claimed (scan bound) */
#define VNPU_H_DEVCFG_STRIDE     68u  /* u32 = VNPU_DEVCFG_BYTES */
#define VNPU_H_DEVSTATE_STRIDE   72u  /* u32 = VNPU_DEVSTATE_BYTES */
#define VNPU_H_CREATOR           76u  /* u32 VNPU_CREATOR_* (who initialised the file) */
#define VNPU_H_SIZED_BY          80u  /* minor 3: u32 VNPU_SIZED_BY_*: who decided the slice's sizes, hence whether a
                                         live resize (vnpu slices resize) may change them; written at
                                         initialisation only. A guard for the admin, not against the tenant
                                         (who can write its own region anyway) */
/* 84..127 reserved (minor additions) */
#define VNPU_H_REGISTRY_DIR      128u /* char[256] directory of the per-physical-device compute registry
                                         files (issue 5); empty = nobody to coordinate with */
/* 384..511 reserved (minor additions) */
#define VNPU_H_SYMBOL_LAUNCHES   512u /* minor 1: u64[32] launches per hooked launch symbol, all devices,
                                         index = enum vnpu_launch_symbol (limiter compute.h) */
#define VNPU_H_UNHOOKED_LAUNCHES 768u /* minor 1: u32 launch-like entry points the loaded runtime exports
                                         and the limiter does not hook (0 = compute fully enforced;
                                         > 0: work enqueued through them is not throttled) */
/* 772..1023 reserved (minor additions) */

/* ---------- device config, VNPU_DEVCFG_OFF + d * VNPU_DEVCFG_BYTES; written under config_seq ---------- */
#define VNPU_DC_MEM_LIMIT        0u   /* u64 bytes, 0 = unlimited */
#define VNPU_DC_COMPUTE_WEIGHT   8u   /* u32 share weight 1..10000 (HAMi NPU_PRIORITY semantics) */
#define VNPU_DC_COMPUTE_CAP_PCT  12u  /* u32 hard cap of AI-core time 0..100, 0 = no cap */
#define VNPU_DC_PRIORITY_CLASS   16u  /* i32 0 = high (may preempt), 1 = normal (HAMi vnpu-priority) */
#define VNPU_DC_PHYS_ID          20u  /* i32 phy ID of the NPU, -1 unknown (names the registry file) */
#define VNPU_DC_FLAGS            24u  /* u32 reserved per-device flags, 0 */
#define VNPU_DC_UUID             32u  /* char[64] */
/* 96..127 reserved */

/* ---------- device live state, VNPU_DEVSTATE_OFF + d * VNPU_DEVSTATE_BYTES ---------- */
/* first cache line: memory statistics (monotonic counters; usage itself is the sum of slots) */
#define VNPU_DS_PEAK_BYTES       0u   /* u64 highest admitted sum seen */
#define VNPU_DS_OOM_REJECTIONS   8u   /* u64 admissions refused with 207001 */
#define VNPU_DS_REAPED_BYTES     16u  /* u64 bytes reclaimed from dead processes */
#define VNPU_DS_UNKNOWN_FREES    24u  /* u64 frees of pointers the limiter did not track */
#define VNPU_DS_ADMISSIONS       32u  /* u64 admissions granted, written by writers of minor <= 3 only;
                                         since minor 4 a reader reports max(admissions, commit_seq) */
#define VNPU_DS_COMMIT_SEQ       40u  /* u64 +1 by every admission after its check, before its commit:
                                         a reader whose scan saw it unchanged read a consistent sum.
                                         Minor 4: also +1 by an admission on an unlimited device, so it
                                         is the count of admissions granted */
/* second and third cache lines: compute (issue 5; per container, written by its own limiters only) */
#define VNPU_DS_GCRA_TAT_NS      64u  /* i64 CLOCK_MONOTONIC ns theoretical arrival time (GCRA state) */
#define VNPU_DS_LAUNCHES         72u  /* u64 */
#define VNPU_DS_THROTTLED_NS     80u  /* u64 */
#define VNPU_DS_LAST_LAUNCH_NS   88u  /* u64 CLOCK_MONOTONIC ns the container was last active here (a
                                         launch, or launches in flight); read by the node agent's
                                         publisher (no other container ever opens this file) */
#define VNPU_DS_COST_EMA_NS      96u  /* u64 device ns per launch (latest estimate) */
#define VNPU_DS_BUSY_NS          104u /* u64 estimated device ns (sum of charged per-launch costs) */
#define VNPU_DS_SHARE_PPM        112u /* minor 1: u32 share the limiter last computed, 1e6 = whole NPU */
#define VNPU_DS_SAMPLES          120u /* minor 1: u64 device-time measurements taken */
#define VNPU_DS_BLOCKED_NS       128u /* minor 2: u64 time a launch of the container wanted more than it got
                                         (inside the runtime behind a full stream, or waiting for its share
                                         in the limiter; not repaying a long execution's debt), sampled by
                                         each process's measurement thread; the publisher's saturation signal */
/* 136..255 reserved for compute */

/* ---------- process slot, VNPU_SLOTS_OFF + i * VNPU_SLOT_BYTES ---------- */
#define VNPU_S_STATE             0u   /* u32 VNPU_SLOT_* */
#define VNPU_S_PID               4u   /* i32 pid in the owner's PID namespace (diagnostics only) */
#define VNPU_S_STARTTIME         8u   /* u64 field 22 of /proc/self/stat (clock ticks since boot) */
#define VNPU_S_GENERATION        16u  /* u64 +1 at every claim of this slot */
#define VNPU_S_HOST_PID          24u  /* i32 0 = unknown */
#define VNPU_S_FLAGS             28u  /* u32 VNPU_SLOTF_* */
#define VNPU_S_CLAIMED_NS        32u  /* u64 CLOCK_REALTIME ns of the claim */
/* 40..63 reserved */
#define VNPU_S_USED_BYTES        64u  /* u64[16] bytes committed per logical device; single writer = owner */
#define VNPU_S_PENDING_BYTES     192u /* u64[16] bytes being admitted (published before the check) */
#define VNPU_S_LAUNCHES          320u /* u64 (issue 5) */
#define VNPU_S_BUSY_NS           328u /* u64 (issue 5) */
/* 336..511 reserved */

/* ---------- enumerations ---------- */
#define VNPU_INIT_EMPTY          0u
#define VNPU_INIT_INITIALISING   1u
#define VNPU_INIT_READY          2u

#define VNPU_SLOT_FREE           0u
#define VNPU_SLOT_CLAIMING       1u
#define VNPU_SLOT_ACTIVE         2u
#define VNPU_SLOT_REAPING        3u

#define VNPU_SLOTF_JAVA          1u   /* claimed by vnpu-quota (a JVM), not by the C limiter */

#define VNPU_CREATOR_LIMITER     1u   /* initialised by libvnpu.so from env / config file */
#define VNPU_CREATOR_JAVA        2u   /* initialised by vnpu-quota (node agent) */

#define VNPU_SIZED_BY_SCHEDULER  0u   /* a scheduler charged for these sizes (DRA plugin, device plugins), or the
                                         limiter from its environment, or a file of minor < 3: never resized */
#define VNPU_SIZED_BY_HOST       1u   /* host slicing (vnpu run, vnpu-quota HostSlices): its owner may resize it */

#define VNPU_POLICY_MEM_ENFORCE      0x1u /* admission refuses over-limit allocations */
#define VNPU_POLICY_COMPUTE_ENFORCE  0x2u /* issue 5: launches are throttled */
#define VNPU_POLICY_COMPUTE_FAIL_OPEN 0x4u /* issue 5: registry trouble => run unthrottled */
#define VNPU_POLICY_HARD_CAP         0x8u /* issue 5: compute_cap_pct is a hard ceiling */
/* Sharing policy of the slice's AI-core share (issue 28, docs/sharing-policies.md); at most one is set,
 * none = the weight and cap as given (regions written before issue 28). The share is the device
 * config's compute_weight (percent of the chip for a Kubernetes slice). */
#define VNPU_POLICY_FIXED_SHARE      0x10u /* the share is guaranteed and is also the cap (compute_cap_pct;
                                              0 there reads as the weight, at most 100) */
#define VNPU_POLICY_ELASTIC          0x20u /* the share is guaranteed; idle time of others may be borrowed up
                                              to compute_cap_pct (0 = the whole chip) and is given back */
#define VNPU_POLICY_BEST_EFFORT      0x40u /* no guarantee: served after every guaranteed slice of the chip
                                              (whatever its priority class), weight among best-effort slices */
#define VNPU_POLICY_SHARE_MASK       0x70u
#define VNPU_POLICY_KNOWN_MASK       0x7Fu

/* ---------- advisory lock bytes (beyond EOF; fcntl OFD or classic POSIX record locks) ---------- */
#define VNPU_LOCK_BASE           (1ULL << 30)
#define VNPU_LOCK_INIT           VNPU_LOCK_BASE                 /* exclusive while initialising */
#define VNPU_LOCK_CONFIG         (VNPU_LOCK_BASE + 1ULL)        /* serialises config writers (config_seq) */
#define VNPU_LOCK_SLOT(i)        (VNPU_LOCK_BASE + 4096ULL + (uint64_t)(i)) /* held by a slot's owner */

/* ---------- CANN return codes the limiter produces ---------- */
#define VNPU_ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION   207001

#endif
