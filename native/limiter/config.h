/*
 * Limiter configuration: where the region is, and what to initialise it with when the limiter is
 * the first to find it missing or empty. Keys (HAMi device-plugin contract plus vnpu additions) and
 * their grammar (README.md "Configuration"; anything else is refused, never read as "unlimited"):
 *   NPU_LOCAL_SHM_PATH   region path, absolute, < 512 bytes (env only; unset or empty: VNPU_DEFAULT_REGION_PATH)
 *   NPU_MEM_QUOTA        MiB of every device: decimal digits only, 0..17592186044415 (0 = no memory
 *                        limit, HAMi's meaning); required to initialise a region
 *   NPU_PRIORITY         compute weight (HAMi passes the core percentage): digits with an optional
 *                        ".digits" fraction, 1..10000 after rounding; default 100
 *   VNPU_DEVICE_COUNT    devices in the container: digits, 1..16; default 16
 *   VNPU_COMPUTE_CAP_PCT hard AI-core cap: digits, 0..100 (0 = none); default 0
 * Values are exact: no sign, no blanks, no unit. The file "vnpu.conf" beside the region (KEY=VALUE
 * lines, '#' comments, blanks around key and value ignored) overrides the env, so a `kubectl exec`
 * shell without the env behaves like the container's main process; a line that is not KEY=VALUE or
 * names an unknown key is as bad as a bad value.
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
/* Longest accepted region path, terminating NUL included. */
#define VNPU_REGION_PATH_MAX 512

enum vnpu_config_status {
    VNPU_CONFIG_NONE = 0, /* no NPU_MEM_QUOTA anywhere: nothing to initialise a region from */
    VNPU_CONFIG_OK = 1,   /* *out holds a valid configuration */
    VNPU_CONFIG_BAD = 2,  /* a value outside the grammar: problem holds one line naming source, key, value */
};

/* Writes the region path into buf (len >= VNPU_REGION_PATH_MAX). Returns 1, or 0 when
 * NPU_LOCAL_SHM_PATH is not an absolute path shorter than VNPU_REGION_PATH_MAX (problem then
 * holds one line naming the variable and its value, and buf the default path). */
int vnpu_config_region_path_checked(char *buf, size_t len, char *problem, size_t plen);
/* The same without the check (the region path as the memory part opened it, or the default). */
void vnpu_config_region_path(char *buf, size_t len);

/* Loads file + env. Nothing is logged: the caller decides (a BAD configuration matters only when the
 * region has to be initialised from it). problem: "vnpu: SOURCE: KEY = 'VALUE': reason", no newline. */
enum vnpu_config_status vnpu_config_load(const char *region_path, struct vnpu_init_config *out, char *problem,
                                         size_t plen);

#endif
