/*
 * vnpu compute registry, layout "VNPUREG1" major 3 minor 0: one file per physical NPU, written ONLY by
 * the node agent (vnpu-quota's io.vnpu.quota.registry package; registry_agent.c in native tests). It
 * tells the limiters of the containers on that NPU who else is there (each container's key, weight,
 * cap, priority class, which logical device of its quota region is this NPU) and, refreshed by the
 * agent's publisher every few milliseconds, how much of the device each one used in the last window,
 * whether it is active and whether it is saturated (wants more than it gets).
 *
 * Trust (docs/compute-registry.md, threat model): nothing a container can open belongs to another
 * container. The registry directory holds only agent-written files, is mounted read-only into
 * containers, and the file is 0644. The limiter never writes it, never maps it (pread only: a shrunk
 * file can never raise SIGBUS), never locks it, and range-checks every field. The agent writes it in
 * place through a descriptor it holds (a tenant's read lease or record lock on the file cannot delay
 * a pwrite; the file is full-size from creation, so a full file system cannot fail it) and takes its
 * record locks in its own file (VNPU_AGF_*), which no container can open. The publisher reads each
 * container's quota region with non-blocking, no-follow opens and pread; the limiter reads only this
 * file. A container's own parameters always come from its own quota region.
 *
 * This header is the single source of truth for offsets. vnpu-quota's RegistryLayout repeats the
 * constants and a conformance test compares them with the output of native/limiter/tests/registry_offsets.c.
 *
 * Rules every reader and writer follows (the same as the quota region's, vnpu_region.h):
 *  - all integers little-endian and naturally aligned;
 *  - a reader refuses a file whose magic differs, whose major differs, whose file_bytes or size is
 *    smaller than the size it knows for its minor, whose geometry differs, or whose init_state is not
 *    READY; the limiter then coordinates with nobody (its own cap still applies) and logs one line;
 *  - minor versions only add fields inside space marked reserved here (reserved space is zero);
 *  - writers change entries and publications under the header's write seqlock, holding the agent
 *    file's VNPU_REG_LOCK_ADMIN; readers retry a torn read a few times.
 */
#ifndef VNPU_REGISTRY_H
#define VNPU_REGISTRY_H

#include <stdint.h>

/* ---------- identity ---------- */
#define VNPU_REG_MAGIC           0x3147455255504E56ULL /* ASCII "VNPUREG1" read as LE u64 */
#define VNPU_REG_MAJOR           3u /* 3: agent-published usage, no activity links (issue 23) */
#define VNPU_REG_MINOR           1u /* 1: entry flags carry the sharing policy (issue 28) */
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
/* The node agents' own file of a registry, "<registry dir>.locks/npu<phyId>.reg.lock": beside the registry
 * directory, never in it (directory 0700, file 0600; no container mounts it). It holds the agents'
 * record-lock bytes and the member table (VNPU_AGF_*). */
#define VNPU_REG_AGENT_DIR_SUFFIX ".locks"
#define VNPU_REG_AGENT_FILE_FMT  "npu%d.reg.lock"

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
#define VNPU_RH_WRITE_SEQ        72u  /* u32 seqlock of the agent's writes: odd while entries change */
#define VNPU_RH_PUB_PERIOD_MS    76u  /* u32 publisher period (1..1000 ms; 0 = no publisher ever ran) */
#define VNPU_RH_PUB_COUNT        80u  /* u64 +1 per publication; readers judge staleness by its progress */
#define VNPU_RH_PUB_NS           88u  /* u64 CLOCK_MONOTONIC ns of the last publication (diagnostics) */
#define VNPU_RH_PUB_WINDOW_MS    96u  /* u32 window the published usage is measured over */
#define VNPU_RH_PUB_PID          100u /* i32 host pid of the publishing agent process (diagnostics) */
/* 104..255 reserved (minor additions) */

/* ---------- container entry, VNPU_REG_ENTRIES_OFF + i * VNPU_REG_ENTRY_BYTES (node agent only) ---------- */
#define VNPU_RE_STATE            0u   /* u32 VNPU_REG_ENTRY_* */
#define VNPU_RE_FLAGS            4u   /* minor 1: u32 VNPU_REG_EF_* (0 before: no policy, weight and cap as given) */
#define VNPU_RE_KEY              8u   /* u64 container key = the quota region's epoch (VNPU_H_EPOCH) */
#define VNPU_RE_WEIGHT           16u  /* u32 share weight 1..10000 */
#define VNPU_RE_CAP_PCT          20u  /* u32 hard cap of AI-core time 0..100, 0 = none */
#define VNPU_RE_PRIORITY_CLASS   24u  /* i32 0 = high (preempts), 1 = normal */
#define VNPU_RE_GENERATION       28u  /* u32 +1 at every registration into this entry */
#define VNPU_RE_NAME             32u  /* char[32] NUL-padded display name */
#define VNPU_RE_DEVICE_INDEX     64u  /* u32 logical device of the container's region that is this NPU */
/* publication: refreshed by the agent's publisher from the container's quota region every period */
#define VNPU_RE_PUB_FLAGS        68u  /* u32 VNPU_REG_PUB_* */
#define VNPU_RE_USED_PPM         72u  /* u32 device time used over the window, ppm of wall time (0..1e6) */
#define VNPU_RE_BLOCKED_PPM      76u  /* u32 time its launches wanted more than they got over the window, ppm
                                         (0..1e6): the region's VNPU_DS_BLOCKED_NS */
#define VNPU_RE_BUSY_NS          80u  /* u64 its total estimated device time (the region's VNPU_DS_BUSY_NS) */
#define VNPU_RE_LAUNCHES         88u  /* u64 its total launches (the region's VNPU_DS_LAUNCHES) */
#define VNPU_RE_THROTTLED_NS     96u  /* u64 its total throttled time (the region's VNPU_DS_THROTTLED_NS) */
#define VNPU_RE_SHARE_PPM        104u /* u32 the share its limiter last computed (the region's VNPU_DS_SHARE_PPM) */
/* 108..127 reserved */

/* ---------- enumerations ---------- */
#define VNPU_REG_INIT_EMPTY      0u
#define VNPU_REG_INIT_INITIALISING 1u
#define VNPU_REG_INIT_READY      2u

#define VNPU_REG_ENTRY_FREE      0u
#define VNPU_REG_ENTRY_ACTIVE    2u

/* VNPU_RE_FLAGS: the container's sharing policy as registered, from its region's VNPU_POLICY_FIXED_SHARE /
 * _ELASTIC / _BEST_EFFORT (docs/sharing-policies.md); a reader ignores unknown bits, and a set of more
 * than one policy bit counts as best-effort for a neighbour (never more than the agent meant) */
#define VNPU_REG_EF_FIXED_SHARE  0x1u
#define VNPU_REG_EF_ELASTIC      0x2u
#define VNPU_REG_EF_BEST_EFFORT  0x4u
#define VNPU_REG_EF_POLICY_MASK  0x7u

/* VNPU_RE_PUB_FLAGS */
#define VNPU_REG_PUB_VALID       0x1u /* the usage below was read from the container's region */
#define VNPU_REG_PUB_ACTIVE      0x2u /* it launched or had launches in flight within the activity window */
#define VNPU_REG_PUB_SATURATED   0x4u /* blocked_ppm >= VNPU_REG_SATURATED_PPM: it wants more than it gets */

/* A container whose launches waited this long (ppm of the window) is saturated: it gets its weighted
 * share whatever it used. */
#define VNPU_REG_SATURATED_PPM   200000u

#define VNPU_REG_CREATOR_TOOL    1u   /* registry_tool (native tests) */
#define VNPU_REG_CREATOR_JAVA    2u

#define VNPU_REG_PRIO_HIGH       0
#define VNPU_REG_PRIO_NORMAL     1

/* Defaults written at initialisation. */
#define VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS 200u
#define VNPU_REG_DEFAULT_BURST_US         20000u
#define VNPU_REG_DEFAULT_PRIO_WAIT_MS     2000u
#define VNPU_REG_DEFAULT_PUB_PERIOD_MS    10u
#define VNPU_REG_DEFAULT_PUB_WINDOW_MS    100u
/* A publication that has not advanced for this many periods (at least VNPU_REG_STALE_MIN_MS) is stale:
 * the agent is gone or stuck, and every neighbour counts at its weighted share. */
#define VNPU_REG_STALE_PERIODS            20u
#define VNPU_REG_STALE_MIN_MS             100u

/* ---------- the agents' file (VNPU_REG_AGENT_FILE_FMT; node agents only, never a container) ---------- */
/* Member table: slot i describes the container of registry entry i, for the publisher and the clean-up
 * (which region file to read, its identity at registration) and for rebuilding the registry by atomic
 * replace when the agent cannot open it (a tenant's lease while no agent held it open); written in
 * place, full-size from creation. A container's region is never named in the registry itself. */
#define VNPU_AGF_MEMBER_BYTES    512u
#define VNPU_AGF_FILE_BYTES      (VNPU_REG_ENTRY_COUNT * VNPU_AGF_MEMBER_BYTES) /* 32768 */
#define VNPU_AGF_KEY             0u   /* u64 key of the entry this slot describes, 0 = none */
#define VNPU_AGF_DEV             8u   /* u64 st_dev of the region file at registration (0: no region) */
#define VNPU_AGF_INO             16u  /* u64 st_ino of the region file at registration */
#define VNPU_AGF_ENTRY           24u  /* char[128] the registry entry as registered (publication zero) */
#define VNPU_AGF_PATH            152u /* char[360] NUL-terminated host path of the region file, "" = none */
#define VNPU_AGF_PATH_BYTES      360u

/* Advisory record-lock bytes, in the agents' file (beyond its end), never in the registry. */
#define VNPU_REG_LOCK_BASE       (1ULL << 30)
#define VNPU_REG_LOCK_INIT       VNPU_REG_LOCK_BASE          /* exclusive while initialising */
#define VNPU_REG_LOCK_ADMIN      (VNPU_REG_LOCK_BASE + 1ULL) /* exclusive while writing entries or a publication */
#define VNPU_REG_LOCK_PUBLISH    (VNPU_REG_LOCK_BASE + 2ULL) /* held by the one agent process that publishes */

#endif
