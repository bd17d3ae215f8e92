/*
 * Access to a per-physical-NPU compute registry file (layout in vnpu_registry.h): open and validate,
 * join the container's entry (claiming or reusing one), liveness probes, and the scan the share
 * computation needs. Every wait here is bounded; every failure is reported to the caller, which
 * then runs unthrottled (compute fails open).
 */
#ifndef VNPU_COMPUTE_REGISTRY_H
#define VNPU_COMPUTE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "compute_core.h"
#include "vnpu_registry.h"

struct vnpu_reg {
    int fd;               /* the only fd this process has on the file: closing another would drop locks */
    unsigned char *base;  /* MAP_SHARED mapping of VNPU_REG_FILE_BYTES */
    int entry;            /* index of our container's entry, -1 before joining */
    int64_t burst_ns;
    int64_t active_window_ns;
    int64_t prio_wait_ns;
};

/* What the container asks for on one device; copied into its entry when joining. */
struct vnpu_reg_member {
    uint64_t key;          /* container key: the quota region's epoch */
    uint32_t weight;       /* 1..10000 */
    uint32_t cap_pct;      /* 0..100 */
    int32_t prio;          /* VNPU_REG_PRIO_* */
    char name[VNPU_REG_NAME_BYTES];
};

/* Result codes; vnpu_reg_strerror gives the text for the one log line. */
enum vnpu_reg_status {
    VNPU_REG_OK = 0,
    VNPU_REG_MISSING,      /* no file at the path */
    VNPU_REG_IO,           /* open/stat/mmap/fcntl failed (errno in *err) */
    VNPU_REG_BAD_MAGIC,
    VNPU_REG_BAD_MAJOR,
    VNPU_REG_TOO_SMALL,    /* file or file_bytes smaller than this minor needs */
    VNPU_REG_NOT_READY,    /* init_state != READY */
    VNPU_REG_BAD_GEOMETRY, /* entry count/size differ from this build's */
    VNPU_REG_BUSY,         /* the admin lock stayed taken past the bound */
    VNPU_REG_FULL,         /* no free or reclaimable entry */
};
const char *vnpu_reg_strerror(enum vnpu_reg_status st);

/* Opens and validates path; on success fills *r (entry = -1). *err gets errno for VNPU_REG_IO. */
enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err);

/*
 * Creates (or re-initialises, when absent/invalid) a registry file for phys_id: test tooling and the C
 * side of the node agent protocol; the limiter itself never creates registries. 0 or -errno.
 */
int vnpu_reg_create(const char *path, int32_t phys_id);

/*
 * Joins the container's entry: under the admin lock (bounded wait), finds the ACTIVE entry with the
 * member's key or claims a free or dead one, copies the member's weight/cap/priority/name, and takes
 * the shared liveness lock on it. Sets r->entry.
 */
enum vnpu_reg_status vnpu_reg_join(struct vnpu_reg *r, const struct vnpu_reg_member *m);

/* 1 when some process (other than the caller) holds the liveness lock of entry i, 0 if none. */
int vnpu_reg_entry_live(const struct vnpu_reg *r, int i);

/*
 * Fills in[0..VNPU_REG_ENTRY_COUNT) from the file for the share computation: busy = ACTIVE, launched
 * within the activity window before now, and live (the caller's own entry is always live).
 * Returns the number of slots filled (always VNPU_REG_ENTRY_COUNT).
 */
int vnpu_reg_scan(const struct vnpu_reg *r, int64_t now, struct vnpu_share_input *in);

/* Pointer to a field of entry i (offset VNPU_RE_*). */
static inline void *vnpu_reg_field(const struct vnpu_reg *r, int i, unsigned off)
{
    return r->base + VNPU_REG_ENTRIES_OFF + (size_t)i * VNPU_REG_ENTRY_BYTES + off;
}

void vnpu_reg_close(struct vnpu_reg *r);

#endif
