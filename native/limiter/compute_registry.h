/*
 * The limiter's read-only view of a per-physical-NPU compute registry (layout in vnpu_registry.h):
 * open and validate, then, on every share computation, a fresh validated snapshot of the agent's
 * entries (pread, never mmap: a file shrunk by anyone can never raise SIGBUS here) and each
 * neighbour's activity time (pread on the hard link to its quota region). Nothing here writes a
 * shared file. Every failure is reported to the caller, which then coordinates with nobody (its own
 * cap still applies).
 */
#ifndef VNPU_COMPUTE_REGISTRY_H
#define VNPU_COMPUTE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "compute_core.h"
#include "vnpu_registry.h"

/* Cached descriptor on one neighbour's activity link. */
struct vnpu_reg_act {
    uint64_t key;   /* 0 = unused */
    uint32_t generation;
    int fd;         /* -1: no link (the neighbour counts as busy) */
};

struct vnpu_reg {
    int fd;               /* O_RDONLY descriptor (>= 3) on the registry file, -1 when closed */
    int32_t phys_id;
    char dir[256];        /* registry directory (activity links live there) */
    int64_t burst_ns;
    int64_t active_window_ns;
    int64_t prio_wait_ns;
    struct vnpu_reg_act act[VNPU_REG_ENTRY_COUNT];
};

/* One ACTIVE entry as read and range-checked. */
struct vnpu_reg_peer {
    uint64_t key;
    uint32_t weight;       /* 1..10000 */
    uint32_t cap_pct;      /* 0..100 */
    int32_t prio;          /* VNPU_REG_PRIO_HIGH or VNPU_REG_PRIO_NORMAL */
    uint32_t dev_index;    /* < VNPU_REGION_MAX_DEVICES (16) */
    uint32_t generation;
};

/* What the container itself is configured with (from its own quota region). */
struct vnpu_reg_self {
    uint64_t key;
    uint32_t weight;
    uint32_t cap_pct;
    int32_t prio;
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

/* Opens path read-only and validates it; on success fills *r. *err gets errno for VNPU_REG_IO. */
enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err);

/*
 * Reads the file again (header validated again) and fills peers[0..n) with its ACTIVE entries, every
 * field range-checked (an entry with a zero key or an out-of-range device index is skipped). Returns
 * n, or -1 when the file no longer validates (then nobody is coordinated with).
 */
int vnpu_reg_read_peers(const struct vnpu_reg *r, struct vnpu_reg_peer *peers);

/*
 * Builds the share computation's input from the registry and the neighbours' activity: entries other
 * than self's key (busy = active within the window per its activity link, or no link), then self from
 * its own configuration, always busy, at the returned index. in has room for VNPU_REG_ENTRY_COUNT + 1.
 * *n gets the entry count. Registry trouble: self alone.
 */
int vnpu_reg_scan(struct vnpu_reg *r, const struct vnpu_reg_self *self, int64_t now, struct vnpu_share_input *in,
                  int *n);

/* Activity time (CLOCK_MONOTONIC ns) the neighbour with this key published for its logical device
 * dev_index, through its activity link; -1 when there is no link, 0 when unreadable (counts idle). */
int64_t vnpu_reg_activity(struct vnpu_reg *r, const struct vnpu_reg_peer *p);

void vnpu_reg_close(struct vnpu_reg *r);

#endif
