/*
 * Quota-region access for the limiter: open/initialise/validate, slot ownership, lock-free exact
 * admission, reaping of dead owners. No CANN dependency, so it is unit-tested on its own.
 * Layout: include/vnpu_region.h; protocol: docs/region-layout.md.
 */
#ifndef VNPU_LIMITER_REGION_H
#define VNPU_LIMITER_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "vnpu_region.h"

/* Outcome of vnpu_region_open; every non-OK value comes with a one-line message naming file and field. */
enum vnpu_open_status {
    VNPU_OPEN_OK = 0,
    VNPU_OPEN_MISSING,      /* no file and nothing to initialise it from */
    VNPU_OPEN_ACCESS,       /* open/mmap refused (permissions) */
    VNPU_OPEN_BAD_MAGIC,
    VNPU_OPEN_BAD_MAJOR,
    VNPU_OPEN_BAD_GEOMETRY, /* size or a geometry field disagrees with this layout */
    VNPU_OPEN_NOT_READY,    /* file exists but was never initialised and we have no config */
    VNPU_OPEN_LOCK_TIMEOUT, /* the init lock stayed busy longer than the bound */
    VNPU_OPEN_IO,
    VNPU_OPEN_NO_SPACE,     /* the file system has no room for the region's blocks (ENOSPC/EDQUOT): a
                             * region with holes would fault (SIGBUS) on its first write, so it is refused */
};

/* What a region is initialised with when the limiter is the first to find it missing or empty. */
struct vnpu_init_config {
    uint32_t device_count;                       /* 1..VNPU_REGION_MAX_DEVICES */
    uint64_t mem_limit[VNPU_REGION_MAX_DEVICES];  /* bytes, 0 = unlimited */
    uint32_t compute_weight;                     /* 1..10000 */
    uint32_t compute_cap_pct;                    /* 0..100 */
    int32_t priority_class;                      /* 0 high, 1 normal */
    uint32_t policy_flags;                       /* VNPU_POLICY_* */
};

struct vnpu_region {
    int fd;              /* the only descriptor of the file in this process (record-lock semantics) */
    unsigned char *base; /* VNPU_REGION_FILE_BYTES mapped MAP_SHARED */
    int slot;            /* own slot index, -1 before claim */
    int use_ofd;         /* 1: OFD locks; 0: classic POSIX locks (kernel without OFD) */
    /* the own slot's used_bytes[0] and pending_bytes[0] (u64[VNPU_REGION_MAX_DEVICES] each), set by
     * the claim, NULL before: the admission and the release index them by device instead of
     * recomputing the slot's offsets from base and slot on every call */
    uint64_t *own_used;
    uint64_t *own_pending;
};

/* Bound on waiting for another process's initialisation (VNPU_LOCK_INIT). */
#define VNPU_INIT_WAIT_MS 2000

enum vnpu_open_status vnpu_region_open(struct vnpu_region *r, const char *path,
                                       const struct vnpu_init_config *init, char *err, size_t errlen);
void vnpu_region_close(struct vnpu_region *r);
const char *vnpu_open_status_name(enum vnpu_open_status s);

/* Claims a free slot (reaping dead owners if none is free) and holds its lock for the process lifetime.
 * Returns the slot index or -1 when all slots belong to live processes. */
int vnpu_region_claim_slot(struct vnpu_region *r);

/* Charges bytes on logical device dev to the own slot if the device limit allows it.
 * Returns 0 (charged) or 1 (over quota, nothing charged). A request that does not fit beside the
 * committed bytes is refused at once (dead owners in the way are reaped first, without sleeping); one
 * that only other admitters' pending charges keep out waits for them, bounded by a few ms, and is
 * refused if they are still in the way (region.c). */
int vnpu_region_admit(struct vnpu_region *r, uint32_t dev, uint64_t bytes);
/* The same for a device the caller has found described (dev < vnpu_region_device_count(r)), so the
 * count is not read twice on the hooked path (hooks.c refuses an undescribed device itself). */
int vnpu_region_admit_described(struct vnpu_region *r, uint32_t dev, uint64_t bytes);
/* Process-local counts of vnpu_region_admit's slow paths (diagnostics; vnpu-bench reports them):
 * refusals because the request does not fit beside the committed bytes (over_limit); admissions
 * that waited for other admitters' pending charges (waited), those of them admitted after the wait
 * (waited_admitted) and those refused because pending charges were still in the way when the wait's
 * bound passed (contended_timeout); reaps of dead owners that made room (reaped). */
/* The whole wait of one admission for other admitters' pending charges, then it is refused. */
/* 50 ms: with 8 admitting processes on 2 CPUs a neighbour preempted inside its admission waits out the
 * other runnable threads' time slices; with 5 ms, 4 of 109,262 refusals there were false (issue 29).
 * Not a cover for every load: waits of 53.6 ms were seen at load 12 and p99 54-62 ms at load 25-35
 * (docs/benchmarks.md), and a stopped holder costs every admission it is in the way of the whole bound */
#define VNPU_ADMIT_CONTENDED_WAIT_NS 50000000ull
struct vnpu_admit_stats {
    uint64_t over_limit, contended_timeout, reaped, waited, waited_admitted;
};
extern struct vnpu_admit_stats vnpu_admit_stats;
/* Uncharges bytes from the own slot (never below zero). */
void vnpu_region_release(struct vnpu_region *r, uint32_t dev, uint64_t bytes);
/* Sum of charged bytes on dev over all slots (saturating). */
uint64_t vnpu_region_used(const struct vnpu_region *r, uint32_t dev);
/* Same sum read consistently: no admission committed during the scan, so the value is one the
 * region really held at some instant (hence <= the limit when enforcing). Returns 1 when consistent,
 * 0 when VNPU_SNAPSHOT_ATTEMPTS scans all raced with commits (*out is then the last plain sum). */
#define VNPU_SNAPSHOT_ATTEMPTS 64
int vnpu_region_used_snapshot(const struct vnpu_region *r, uint32_t dev, uint64_t *out);
uint64_t vnpu_region_limit(const struct vnpu_region *r, uint32_t dev);
uint32_t vnpu_region_device_count(const struct vnpu_region *r);
uint32_t vnpu_region_policy(const struct vnpu_region *r);
/* Frees the slots of dead owners; returns how many were reaped. */
int vnpu_region_reap(struct vnpu_region *r);
void vnpu_region_count(struct vnpu_region *r, uint32_t dev, uint32_t ds_field, uint64_t n);

/* fork handlers for the process-local reaper mutex */
void vnpu_region_atfork_prepare(void);
void vnpu_region_atfork_parent(void);
void vnpu_region_atfork_child(void);
/* raw clone() child (fork.h): the reaper mutex re-initialised (no prepare handler took it) */
void vnpu_region_clone_child(void);

/* Raw accessors (atomic) used by tests and the hooks. */
uint64_t vnpu_load64(const struct vnpu_region *r, uint64_t off);
uint32_t vnpu_load32(const struct vnpu_region *r, uint64_t off);

static inline uint64_t vnpu_slot_off(uint32_t i) { return VNPU_SLOTS_OFF + (uint64_t)i * VNPU_SLOT_BYTES; }
static inline uint64_t vnpu_devcfg_off(uint32_t d) { return VNPU_DEVCFG_OFF + (uint64_t)d * VNPU_DEVCFG_BYTES; }
static inline uint64_t vnpu_devstate_off(uint32_t d) { return VNPU_DEVSTATE_OFF + (uint64_t)d * VNPU_DEVSTATE_BYTES; }

/* Field 22 of /proc/self/stat (start time in clock ticks), 0 if unreadable. */
uint64_t vnpu_self_starttime(void);

#endif
