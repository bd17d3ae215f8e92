/*
 * Limiter configuration: where the region is, and what to initialise it with when the limiter is
 * the first to find it missing or empty. Keys (HAMi device-plugin contract plus vnpu additions):
 *   NPU_LOCAL_SHM_PATH   region path (env only; default VNPU_DEFAULT_REGION_PATH)
 *   NPU_MEM_QUOTA        MiB, limit of every device; required to initialise a region
 *   NPU_PRIORITY         compute weight (HAMi passes the core percentage), default 100
 *   VNPU_DEVICE_COUNT    devices in the container, 1..16, default 16
 *   VNPU_COMPUTE_CAP_PCT hard AI-core cap 0..100, default 0 (none)
 * The file "vnpu.conf" beside the region (KEY=VALUE lines, '#' comments) overrides the env, so a
 * `kubectl exec` shell without the env behaves like the container's main process.
 */
#ifndef VNPU_LIMITER_CONFIG_H
#define VNPU_LIMITER_CONFIG_H

#include <stddef.h>

#include "region.h"

/* The environment contract: names and units the adapters set (Java io.vnpu.quota.env.LimiterEnv,
 * checked against these lines by LimiterEnvConformanceTest). */
#define VNPU_ENV_REGION_PATH "NPU_LOCAL_SHM_PATH"
#define VNPU_ENV_MEM_QUOTA "NPU_MEM_QUOTA"
#define VNPU_ENV_PRIORITY "NPU_PRIORITY"
#define VNPU_ENV_DEVICE_COUNT "VNPU_DEVICE_COUNT"
#define VNPU_ENV_COMPUTE_CAP_PCT "VNPU_COMPUTE_CAP_PCT"
/* NPU_MEM_QUOTA unit: bytes per MiB */
#define VNPU_ENV_MEM_QUOTA_UNIT_BYTES (1024ull * 1024ull)
/* default NPU_PRIORITY (compute weight) */
#define VNPU_ENV_DEFAULT_PRIORITY 100
/* upper bound of VNPU_COMPUTE_CAP_PCT */
#define VNPU_ENV_MAX_COMPUTE_CAP_PCT 100

#define VNPU_DEFAULT_REGION_PATH "/hami-vnpu-shmem/vnpu_local_shmem"
#define VNPU_CONFIG_FILE_NAME "vnpu.conf"

/* Log sink: one complete line without newline. */
typedef void (*vnpu_log_fn)(const char *line);

/* Writes the region path into buf. */
void vnpu_config_region_path(char *buf, size_t len);

/* Loads file + env. Returns 1 when NPU_MEM_QUOTA was given (valid), so *out may initialise a region;
 * 0 otherwise. Invalid values and unknown file keys are logged (naming file, key, value) and ignored. */
int vnpu_config_load(const char *region_path, struct vnpu_init_config *out, vnpu_log_fn log);

#endif
