/*
 * vnpu compute registry, layout "VNPUREG1" major 1 minor 0: one file per physical NPU, shared by every
 * container on that NPU (through the limiter libvnpu.so), the node agent and vnpu-quota's
 * io.vnpu.quota.registry package. It is how containers on one NPU learn about each other: who is
 * launching now, with which weight, cap and priority class, and each container's GCRA state.
 *
 * This header is the single source of truth for offsets. docs/compute-registry.md explains the
 * protocols; vnpu-quota's RegistryLayout repeats the constants and a conformance test compares them
 * with the output of native/limiter/registry_offsets.c.
 *
 * Rules every reader and writer follows (the same as the quota region's, vnpu_region.h):
 *  - all integers little-endian and naturally aligned; fields other processes write are accessed with
 *    atomics (C __atomic_*, Java VarHandle volatile/CAS);
 *  - a reader refuses a file whose magic differs, whose major differs, whose file_bytes is smaller than
 *    the size it knows for its minor, or whose init_state is not READY; the limiter then runs
 *    unthrottled (compute fails open) and logs one line;
 *  - minor versions only add fields inside space marked reserved here (reserved space is zero);
 *  - the advisory record-lock bytes (VNPU_REG_LOCK_*) lie beyond EOF: they are never mapped.
 *
 * Liveness: every process that uses an entry holds a shared (read) record lock on
 * VNPU_REG_LOCK_ENTRY(i) for its lifetime. The kernel drops it when the process dies, so "some
 * process holds a lock on the entry byte" is the namespace-proof, PID-reuse-proof liveness test.
 * Nothing that a dead process leaves behind throttles anybody else: its GCRA state only ever delays
 * its own container, and an entry without a live holder counts as idle.
 */
#ifndef VNPU_REGISTRY_H
#define VNPU_REGISTRY_H

#include <stdint.h>

/* ---------- identity ---------- */
#define VNPU_REG_MAGIC           0x3147455255504E56ULL /* ASCII "VNPUREG1" read as LE u64 */
#define VNPU_REG_MAJOR           1u
#define VNPU_REG_MINOR           0u
#define VNPU_REG_ENTRY_COUNT     64u
#define VNPU_REG_NAME_BYTES      32u  /* NUL-padded container name, for display only */
#define VNPU_REG_SYMBOL_COUNT    32u  /* per-symbol launch counters per entry */

/* ---------- file geometry ---------- */
#define VNPU_REG_HDR_BYTES       256u
#define VNPU_REG_ENTRIES_OFF     256u
#define VNPU_REG_ENTRY_BYTES     512u
#define VNPU_REG_FILE_BYTES      (VNPU_REG_ENTRIES_OFF + VNPU_REG_ENTRY_COUNT * VNPU_REG_ENTRY_BYTES) /* 33024 */

/* File name inside the registry directory (the quota region's VNPU_H_REGISTRY_DIR): "npu<phyId>.reg". */
#define VNPU_REG_FILE_FMT        "npu%d.reg"

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
#define VNPU_RH_ACTIVE_WINDOW_MS 56u  /* u32 a container launched within this window counts as busy */
#define VNPU_RH_BURST_US         60u  /* u32 GCRA burst: device time a container may run ahead */
#define VNPU_RH_PRIO_WAIT_MS     64u  /* u32 longest a launch waits for a higher priority class */
#define VNPU_RH_CREATOR          68u  /* u32 VNPU_REG_CREATOR_* */
/* 72..255 reserved (minor additions) */

/* ---------- container entry, VNPU_REG_ENTRIES_OFF + i * VNPU_REG_ENTRY_BYTES ---------- */
/* first cache line: identity and configuration (written when joining or by the node agent) */
#define VNPU_RE_STATE            0u   /* u32 VNPU_REG_ENTRY_* */
#define VNPU_RE_FLAGS            4u   /* u32 VNPU_REG_ENTRYF_* */
#define VNPU_RE_KEY              8u   /* u64 container key = the quota region's epoch (VNPU_H_EPOCH) */
#define VNPU_RE_WEIGHT           16u  /* u32 share weight 1..10000 */
#define VNPU_RE_CAP_PCT          20u  /* u32 hard cap of AI-core time 0..100, 0 = none */
#define VNPU_RE_PRIORITY_CLASS   24u  /* i32 0 = high (preempts), 1 = normal */
#define VNPU_RE_GENERATION       28u  /* u32 +1 at every claim of this entry */
#define VNPU_RE_NAME             32u  /* char[32] NUL-padded display name */
/* second cache line: written on launches (hot) */
#define VNPU_RE_GCRA_TAT_NS      64u  /* i64 CLOCK_MONOTONIC ns theoretical arrival time */
#define VNPU_RE_LAST_LAUNCH_NS   72u  /* u64 CLOCK_MONOTONIC ns of a recent launch (refreshed <= 1/ms) */
/* 80..127 reserved */
/* third cache line: statistics, written by the limiters' measurement threads (monotonic counters) */
#define VNPU_RE_LAUNCHES         128u /* u64 launches throttled or forwarded */
#define VNPU_RE_THROTTLED_NS     136u /* u64 time launches waited in the limiter */
#define VNPU_RE_BUSY_NS          144u /* u64 estimated device ns (sum of charged per-launch costs) */
#define VNPU_RE_COST_NS          152u /* u64 last per-launch device-time estimate */
#define VNPU_RE_SHARE_PPM        160u /* u32 share of the device the limiter last computed, 1e6 = all */
#define VNPU_RE_SAMPLES          168u /* u64 device-time measurements taken */
/* 176..255 reserved */
/* 256..511: u64[32] launches per hooked symbol, index = enum vnpu_launch_symbol (compute.h); they let
 * tests and `vnpu top` see which runtime entry points a workload uses */
#define VNPU_RE_SYMBOL_LAUNCHES  256u

/* ---------- enumerations ---------- */
#define VNPU_REG_INIT_EMPTY      0u
#define VNPU_REG_INIT_INITIALISING 1u
#define VNPU_REG_INIT_READY      2u

#define VNPU_REG_ENTRY_FREE      0u
#define VNPU_REG_ENTRY_CLAIMING  1u
#define VNPU_REG_ENTRY_ACTIVE    2u

#define VNPU_REG_ENTRYF_PINNED   1u   /* registered by the node agent: kept while no process uses it */

#define VNPU_REG_CREATOR_LIMITER 1u
#define VNPU_REG_CREATOR_JAVA    2u

#define VNPU_REG_PRIO_HIGH       0
#define VNPU_REG_PRIO_NORMAL     1

/* Defaults written at initialisation. */
#define VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS 200u
#define VNPU_REG_DEFAULT_BURST_US         20000u
#define VNPU_REG_DEFAULT_PRIO_WAIT_MS     2000u

/* ---------- advisory lock bytes (beyond EOF; classic POSIX record locks) ---------- */
#define VNPU_REG_LOCK_BASE       (1ULL << 30)
#define VNPU_REG_LOCK_INIT       VNPU_REG_LOCK_BASE          /* exclusive while initialising */
#define VNPU_REG_LOCK_ADMIN      (VNPU_REG_LOCK_BASE + 1ULL) /* exclusive while claiming/joining/reaping */
#define VNPU_REG_LOCK_ENTRY(i)   (VNPU_REG_LOCK_BASE + 4096ULL + (uint64_t)(i)) /* shared by users */

#endif
