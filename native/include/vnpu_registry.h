/*
 * vnpu compute registry, layout "VNPUREG1" major 2 minor 0: one file per physical NPU, written ONLY by
 * the node agent (vnpu-quota's io.vnpu.quota.registry package; registry_tool in native tests). It
 * tells the limiters of the containers on that NPU who else is there: each container's key, weight,
 * cap and priority class, and which logical device of its quota region is this NPU.
 *
 * Trust (docs/compute-registry.md, threat model): containers mount the registry directory read-only
 * and the file is 0644; the limiter never writes it, never maps it (it reads it with pread, so a
 * shrunk file can never raise SIGBUS), and range-checks every field it reads. A container's own
 * parameters always come from its own quota region; its mutable compute state (GCRA tat, activity,
 * statistics) lives in its own region. The only thing the limiter reads about a neighbour besides the
 * agent's entry is the neighbour's activity time, from the neighbour's region, which the agent
 * hard-links into the registry directory (VNPU_REG_ACTIVITY_FMT): a container can only ever claim to
 * be busy, which it could also be by launching work.
 *
 * This header is the single source of truth for offsets. vnpu-quota's RegistryLayout repeats the
 * constants and a conformance test compares them with the output of native/limiter/registry_offsets.c.
 *
 * Rules every reader and writer follows (the same as the quota region's, vnpu_region.h):
 *  - all integers little-endian and naturally aligned;
 *  - a reader refuses a file whose magic differs, whose major differs, whose file_bytes or size is
 *    smaller than the size it knows for its minor, whose geometry differs, or whose init_state is not
 *    READY; the limiter then coordinates with nobody (its own cap still applies) and logs one line;
 *  - minor versions only add fields inside space marked reserved here (reserved space is zero);
 *  - the advisory record-lock bytes (VNPU_REG_LOCK_*) lie beyond EOF; only node agents take them.
 */
#ifndef VNPU_REGISTRY_H
#define VNPU_REGISTRY_H

#include <stdint.h>

/* ---------- identity ---------- */
#define VNPU_REG_MAGIC           0x3147455255504E56ULL /* ASCII "VNPUREG1" read as LE u64 */
#define VNPU_REG_MAJOR           2u
#define VNPU_REG_MINOR           0u
#define VNPU_REG_ENTRY_COUNT     64u
#define VNPU_REG_NAME_BYTES      32u  /* NUL-padded container name, for display only */
#define VNPU_REG_SYMBOL_COUNT    32u  /* per-symbol launch counters (in the quota region) */

/* ---------- file geometry ---------- */
#define VNPU_REG_HDR_BYTES       256u
#define VNPU_REG_ENTRIES_OFF     256u
#define VNPU_REG_ENTRY_BYTES     128u
#define VNPU_REG_FILE_BYTES      (VNPU_REG_ENTRIES_OFF + VNPU_REG_ENTRY_COUNT * VNPU_REG_ENTRY_BYTES) /* 8448 */

/* File name inside the registry directory (the quota region's VNPU_H_REGISTRY_DIR): "npu<phyId>.reg". */
#define VNPU_REG_FILE_FMT        "npu%d.reg"
/* Hard link to a registered container's quota region, made by the node agent next to the registry:
 * "npu<phyId>-<key as 16 lower-case hex digits>.act". Missing link: the container counts as busy. */
#define VNPU_REG_ACTIVITY_FMT    "npu%d-%016llx.act"

/* ---------- header (offsets from 0) ---------- */
#define VNPU_RH_MAGIC            0u   /* u64 VNPU_REG_MAGIC, written before READY */
#define VNPU_RH_MAJOR            8u   /* u16 */
#define VNPU_RH_MINOR            10u  /* u16 */
#define VNPU_RH_HEADER_BYTES     12u  /* u32 = VNPU_REG_HDR_BYTES */
#define VNPU_RH_FILE_BYTES       16u  /* u64 = size the writer's minor needs */
#define VNPU_RH_INIT_STATE       24u  /* u32 VNPU_REG_INIT_* */
#define VNPU_RH_ENTRY_COUNT      28u  /* u32 = VNPU_REG_ENTRY_COUNT */
#define VNPU_RH_ENTRY_BYTES      32u  /* u32 = VNPU_REG_ENTRY_BYTES */
#define VNPU_RH_PHYS_ID          36u  /* i32 phy ID of the NPU this file coordinates */
#define VNPU_RH_EPOCH            40u  /* u64 random non-zero, new at every initialisation */
#define VNPU_RH_CREATED_NS       48u  /* u64 CLOCK_REALTIME ns at initialisation */
#define VNPU_RH_ACTIVE_WINDOW_MS 56u  /* u32 a container active within this window counts as busy */
#define VNPU_RH_BURST_US         60u  /* u32 GCRA burst: device time a container may run ahead */
#define VNPU_RH_PRIO_WAIT_MS     64u  /* u32 longest a launch waits for a higher priority class */
#define VNPU_RH_CREATOR          68u  /* u32 VNPU_REG_CREATOR_* */
#define VNPU_RH_WRITE_SEQ        72u  /* u32 seqlock of the agent's writes: odd while an entry changes */
/* 76..255 reserved (minor additions) */

/* ---------- container entry, VNPU_REG_ENTRIES_OFF + i * VNPU_REG_ENTRY_BYTES (node agent only) ---------- */
#define VNPU_RE_STATE            0u   /* u32 VNPU_REG_ENTRY_* */
#define VNPU_RE_FLAGS            4u   /* u32 reserved, 0 */
#define VNPU_RE_KEY              8u   /* u64 container key = the quota region's epoch (VNPU_H_EPOCH) */
#define VNPU_RE_WEIGHT           16u  /* u32 share weight 1..10000 */
#define VNPU_RE_CAP_PCT          20u  /* u32 hard cap of AI-core time 0..100, 0 = none */
#define VNPU_RE_PRIORITY_CLASS   24u  /* i32 0 = high (preempts), 1 = normal */
#define VNPU_RE_GENERATION       28u  /* u32 +1 at every registration into this entry */
#define VNPU_RE_NAME             32u  /* char[32] NUL-padded display name */
#define VNPU_RE_DEVICE_INDEX     64u  /* u32 logical device of the container's region that is this NPU */
/* 68..127 reserved */

/* ---------- enumerations ---------- */
#define VNPU_REG_INIT_EMPTY      0u
#define VNPU_REG_INIT_INITIALISING 1u
#define VNPU_REG_INIT_READY      2u

#define VNPU_REG_ENTRY_FREE      0u
#define VNPU_REG_ENTRY_ACTIVE    2u

#define VNPU_REG_CREATOR_TOOL    1u   /* registry_tool (native tests) */
#define VNPU_REG_CREATOR_JAVA    2u

#define VNPU_REG_PRIO_HIGH       0
#define VNPU_REG_PRIO_NORMAL     1

/* Defaults written at initialisation. */
#define VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS 200u
#define VNPU_REG_DEFAULT_BURST_US         20000u
#define VNPU_REG_DEFAULT_PRIO_WAIT_MS     2000u

/* ---------- advisory lock bytes (beyond EOF; node agents only) ---------- */
#define VNPU_REG_LOCK_BASE       (1ULL << 30)
#define VNPU_REG_LOCK_INIT       VNPU_REG_LOCK_BASE          /* exclusive while initialising */
#define VNPU_REG_LOCK_ADMIN      (VNPU_REG_LOCK_BASE + 1ULL) /* exclusive while (un)registering */

#endif
