/*
 * The node agent's side of the compute registry in C (test tooling: registry_tool and the native
 * tests; the real node agent is vnpu-quota's io.vnpu.quota.registry). Same files and protocol as the
 * Java agent (vnpu_registry.h): the registry is written in place with pwrite under the admin record
 * lock, which lives in the agents' own file beside the registry directory, and under the header's
 * write seqlock; the member table in the agents' file says which region file each entry is. Never
 * used by libvnpu.so.
 *
 * Every open of a file a tenant can reach (the registry, a container's region) is non-blocking,
 * no-follow, regular files only: a lease, a FIFO, a symlink, a directory or a file of the wrong size
 * is an error for that one file, never a stall.
 */
#ifndef VNPU_REGISTRY_AGENT_H
#define VNPU_REGISTRY_AGENT_H

#include <stdint.h>

/* Path of the agents' file of registry path (VNPU_REG_AGENT_FILE_FMT). 0, or -ENAMETOOLONG. */
int vnpu_agent_file_path(const char *registry, char *buf, unsigned len);

/* Creates (or re-initialises when invalid) the registry file for phys_id, mode 0644, and its agents'
 * file. 0 or -errno. */
int vnpu_agent_create(const char *path, int32_t phys_id);

struct vnpu_agent_member {
    uint64_t key;
    uint32_t weight, cap_pct;
    int32_t prio;
    uint32_t dev_index;
    uint32_t flags;      /* VNPU_REG_EF_*: the sharing policy */
    const char *name;
    const char *region;  /* the container's quota region (host path), NULL = none (its usage is then
                            never published: it counts at its weighted share) */
};

/* Registers (or updates) a container; returns the entry index or -errno. */
int vnpu_agent_register(const char *path, const struct vnpu_agent_member *m);
/* Removes a container's entry and member slot; 1 if it existed, 0 if not, -errno. */
int vnpu_agent_unregister(const char *path, uint64_t key);

/*
 * The publisher: every period it reads each registered container's activity and usage counters from
 * its quota region (cached non-blocking descriptor, pread) and publishes them in the registry. Only
 * the process holding VNPU_REG_LOCK_PUBLISH publishes; others wait for it to go.
 */
struct vnpu_agent_publisher;
struct vnpu_agent_publisher *vnpu_agent_publisher_open(const char *path, uint32_t period_ms, uint32_t window_ms);
/* One round at CLOCK_MONOTONIC now_ns: 1 published, 0 another process publishes or the admin lock was
 * busy, -errno on registry trouble. */
int vnpu_agent_publish(struct vnpu_agent_publisher *p, int64_t now_ns);
/* Regions that could not be read (each logged once on stderr). */
uint64_t vnpu_agent_publisher_errors(const struct vnpu_agent_publisher *p);
void vnpu_agent_publisher_close(struct vnpu_agent_publisher *p);

#endif
