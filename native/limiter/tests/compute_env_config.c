/*
 * Test-only configuration source for the compute limiter: the libvnpu.so build reads the quota
 * region (compute_config.c); the compute test preload reads these variables instead, so the
 * compute algorithms can be exercised against the simulated runtime on their own.
 *   VNPU_TEST_REGISTRY_DIR  directory of npu<phyId>.reg (required, else compute is off)
 *   VNPU_TEST_KEY           container key (default: pid)
 *   VNPU_TEST_PHYS          phy ID of logical device 0 (default 0)
 *   VNPU_TEST_WEIGHT / VNPU_TEST_CAP / VNPU_TEST_PRIO  (defaults 1 / 0 / 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compute.h"

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 0) : dflt;
}

int vnpu_compute_load_config(struct vnpu_compute_config *out)
{
    const char *dir = getenv("VNPU_TEST_REGISTRY_DIR");
    if (!dir)
        return -1;
    memset(out, 0, sizeof *out);
    out->enabled = 1;
    snprintf(out->registry_dir, sizeof out->registry_dir, "%s", dir);
    out->key = (uint64_t)env_long("VNPU_TEST_KEY", (long)getpid());
    snprintf(out->name, sizeof out->name, "%s", getenv("VNPU_TEST_NAME") ? getenv("VNPU_TEST_NAME") : "test");
    out->device_count = 1;
    out->dev[0].phys_id = (int32_t)env_long("VNPU_TEST_PHYS", 0);
    out->dev[0].weight = (uint32_t)env_long("VNPU_TEST_WEIGHT", 1);
    out->dev[0].cap_pct = (uint32_t)env_long("VNPU_TEST_CAP", 0);
    out->dev[0].prio = (int32_t)env_long("VNPU_TEST_PRIO", 1);
    return 0;
}

void vnpu_compute_publish_region(uint32_t dev, uint64_t launches, uint64_t throttled_ns, uint64_t busy_ns,
                                 uint64_t cost_ns, int64_t last_launch_ns)
{
    (void)dev, (void)launches, (void)throttled_ns, (void)busy_ns, (void)cost_ns, (void)last_launch_ns;
}
