/*
 * The node agent's side of the compute registry in C (test tooling: registry_tool and the native
 * tests; the real node agent is vnpu-quota's io.vnpu.quota.registry). Writes with pwrite under the
 * admin record lock and the header's write seqlock; never used by libvnpu.so.
 */
#ifndef VNPU_REGISTRY_AGENT_H
#define VNPU_REGISTRY_AGENT_H

#include <stdint.h>

/* Creates (or re-initialises when invalid) the registry file for phys_id, mode 0644. 0 or -errno. */
int vnpu_agent_create(const char *path, int32_t phys_id);

struct vnpu_agent_member {
    uint64_t key;
    uint32_t weight, cap_pct;
    int32_t prio;
    uint32_t dev_index;
    const char *name;
    const char *region;  /* quota region to hard-link as the activity link, NULL = none */
};

/* Registers (or updates) a container; returns the entry index or -errno. */
int vnpu_agent_register(const char *path, const struct vnpu_agent_member *m);
/* Removes a container's entry and activity link; 1 if it existed, 0 if not, -errno. */
int vnpu_agent_unregister(const char *path, uint64_t key);

#endif
