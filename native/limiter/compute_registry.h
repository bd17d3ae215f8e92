/*
 * The limiter's read-only view of a per-physical-NPU compute registry (layout in vnpu_registry.h):
 * open and validate, then, on every share computation, a fresh validated snapshot of the agent's
 * entries and of its publication of their usage (one pread, never mmap: a file shrunk by anyone can
 * never raise SIGBUS here; no lock; nothing else is opened). Nothing here writes a shared file. Every
 * failure is reported to the caller, which then coordinates with nobody (its own cap still applies);
 * a stale publication makes every neighbour count at its weighted share.
 */
#ifndef VNPU_COMPUTE_REGISTRY_H
#define VNPU_COMPUTE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "compute_core.h"
#include "vnpu_registry.h"

struct vnpu_reg {
    int fd;               /* O_RDONLY descriptor (>= 3) on the registry file, -1 when closed */
    int32_t phys_id;
    int64_t burst_ns;
    int64_t active_window_ns;
    int64_t prio_wait_ns;
    /* staleness of the agent's publication, judged by the progress of pub_count on our own clock
     * (no clock is shared with the agent): fresh while it advanced within stale_ns */
    uint64_t pub_count;   /* last seen */
    int64_t pub_seen_ns;  /* when it last advanced (CLOCK_MONOTONIC), 0 = never seen advancing */
    int64_t stale_ns;
    /* the file at the path is checked now and then: the agent may have replaced it (atomically, when
     * a tenant's lease kept it from opening the old one) or created it after we looked */
    char path[512];       /* "" = nothing to coordinate with (no retry) */
    uint64_t dev, ino;    /* of fd */
    int64_t checked_ns;   /* last check (CLOCK_MONOTONIC) */
    /* neighbours that woke up (published active after they were not): each counts at its weighted
     * share until the publication holds a whole window of its use (wake_ns), so that whoever borrowed
     * its idle time gives it back at once instead of waiting to see its use grow (issue 28, elastic);
     * per entry index: the key seen waking and when (0 = not awake) */
    int64_t wake_ns;
    uint64_t wake_key[VNPU_REG_ENTRY_COUNT];
    int64_t wake_since[VNPU_REG_ENTRY_COUNT];
};

/* One ACTIVE entry as read and range-checked. */
struct vnpu_reg_peer {
    uint32_t entry;        /* entry index */
    uint64_t key;
    uint32_t weight;       /* 1..10000 */
    uint32_t cap_pct;      /* 0..100 */
    int32_t prio;          /* VNPU_REG_PRIO_HIGH or VNPU_REG_PRIO_NORMAL */
    uint32_t dev_index;    /* < VNPU_REGION_MAX_DEVICES (16) */
    uint32_t generation;
    uint32_t policy;       /* enum vnpu_share_policy, from the entry's VNPU_REG_EF_* */
    uint32_t pub_flags;    /* VNPU_REG_PUB_* */
    uint32_t used_ppm;     /* 0..1e6 */
    uint32_t blocked_ppm;  /* 0..1e6 */
    uint64_t busy_ns, launches;
};

/* The header's publication as read. */
struct vnpu_reg_pub {
    uint64_t count;
    uint32_t period_ms;
    uint32_t window_ms;
};

/* What the container itself is configured with (from its own quota region). */
struct vnpu_reg_self {
    uint64_t key;
    uint32_t weight;
    uint32_t cap_pct;
    int32_t prio;
    uint32_t policy;       /* enum vnpu_share_policy, from the own region's VNPU_POLICY_* */
};

/* Result codes; vnpu_reg_strerror gives the text for the one log line. */
enum vnpu_reg_status {
    VNPU_REG_OK = 0,
    VNPU_REG_MISSING,      /* no file at the path */
    VNPU_REG_IO,           /* open/stat/read failed, or not a regular file (errno in *err) */
    VNPU_REG_BAD_MAGIC,
    VNPU_REG_BAD_MAJOR,
    VNPU_REG_TOO_SMALL,    /* file or file_bytes smaller than this minor needs */
    VNPU_REG_NOT_READY,    /* init_state != READY */
    VNPU_REG_BAD_GEOMETRY, /* entry count/size differ from this build's */
    VNPU_REG_WRITABLE,     /* group- or world-writable: a tenant could have written it */
};
const char *vnpu_reg_strerror(enum vnpu_reg_status st);

/* No registry: nobody to coordinate with, default tunables (fd -1). */
void vnpu_reg_none(struct vnpu_reg *r);

/* Like vnpu_reg_none, but vnpu_reg_scan tries path again every VNPU_REG_RECHECK_NS (silently): the
 * agent may create or replace it later. */
void vnpu_reg_retry_later(struct vnpu_reg *r, const char *path);
#define VNPU_REG_RECHECK_NS 1000000000LL

/* Opens path read-only and validates it; on success fills *r. *err gets errno for VNPU_REG_IO. */
enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err);

/*
 * Reads the file again (header validated again) and fills peers[0..n) with its ACTIVE entries, every
 * field range-checked (an entry with a zero key or an out-of-range device index is skipped); *pub
 * (may be NULL) gets the header's publication. Returns n, or -1 when the file no longer validates
 * (then nobody is coordinated with).
 */
int vnpu_reg_read_peers(const struct vnpu_reg *r, struct vnpu_reg_peer *peers, struct vnpu_reg_pub *pub);

/*
 * Builds the share computation's input from the registry: entries other than self's key, then self
 * from its own configuration, always busy, at the returned index. A neighbour is
 *   - at its weighted share (busy, demand unknown) while the publication is stale (the agent is gone
 *     or stuck: nobody fails open past their own cap, nobody starves), or when the publisher could
 *     not read its usage, or when it is saturated;
 *   - idle when the publisher saw no activity within the window;
 *   - at its weighted share for one publication window (plus two periods) after it woke up (was seen
 *     active after it was not): its published use does not yet show what it needs;
 *   - otherwise busy with the demand vnpu_demand_ppm(its used device time);
 * every entry, self included, in the terms of its sharing policy (vnpu_share_apply_policy).
 * in has room for VNPU_REG_ENTRY_COUNT + 1. *n gets the entry count. Registry trouble: self alone.
 * now is CLOCK_MONOTONIC ns of the caller (staleness is judged on the caller's clock only).
 */
int vnpu_reg_scan(struct vnpu_reg *r, const struct vnpu_reg_self *self, int64_t now, struct vnpu_share_input *in,
                  int *n);

/* Whether the publication counted fresh at the last vnpu_reg_scan. */
int vnpu_reg_fresh(const struct vnpu_reg *r, int64_t now);

void vnpu_reg_close(struct vnpu_reg *r);

#endif
