/*
 * Shared state of the simulated DCMI host: one file under $VNPU_SIM_ROOT, mapped MAP_SHARED and
 * changed only under an exclusive flock on a sibling lock file, so that every process (the JVM,
 * vnpu-sim-ctl, test programs) sees the same vNPUs, faults and knobs, as with a real driver.
 */
#ifndef VNPU_DCMI_SIM_STATE_H
#define VNPU_DCMI_SIM_STATE_H

#include <stdint.h>

#include "vnpu_sim_host.h"

#define SIM_MAX_VDEV 32
#define SIM_MAX_FAULTS 32
#define SIM_TEMPLATE_LEN 32
#define SIM_STATE_MAGIC 0x44434d49u /* "DCMI" */
#define SIM_STATE_VERSION 1u
#define SIM_LOCK_TIMEOUT_MS 5000

struct sim_vdev {
    uint32_t id; /* 0 = free slot */
    uint32_t vfg_id;
    uint32_t in_use; /* is_container_used */
    uint32_t aicore_util;
    uint64_t container_id;
    char template_name[SIM_TEMPLATE_LEN];
};

struct sim_chip {
    uint32_t health;  /* 0 ok, 1 minor, 2 major, 3 critical */
    uint32_t dropped; /* card dropped: health queries return -8012 */
    uint32_t fault_count;
    uint32_t faults[SIM_MAX_FAULTS];
    uint32_t aicore_util;
    struct sim_vdev vdevs[SIM_MAX_VDEV];
};

struct sim_state {
    uint32_t magic;
    uint32_t version;
    uint64_t host_signature; /* hash of the profile's devices; a different profile resets the state */
    int32_t init_fail;       /* dcmi_init returns this when non-zero */
    uint32_t latency_ms;     /* added to every call */
    uint32_t hidden_card_calls; /* "cards appear late": this many card-list calls return no cards */
    uint32_t multi_die_policy;  /* A3: enum dcmi_multi_die_policy */
    struct sim_chip chips[VNPU_SIM_MAX_DEVICES];
};

/* A vNPU template and what it takes from its chip. */
struct sim_template {
    const char *chip_prefix; /* chip_name prefix it applies to */
    const char *name;
    uint32_t ai_cores;
    uint32_t ai_cpus;
    uint32_t mem_num, mem_den; /* memory = chip memory * num / den when mem_mb == 0 */
    uint64_t mem_mb;
};

/* The host the current environment describes (profile and root). */
struct sim_host {
    struct vnpu_sim_device_info devs[VNPU_SIM_MAX_DEVICES];
    int n;
    char root[480];
};

/* Loads profile and root from the environment; 0 or a DCMI error code. */
int sim_host_load(struct sim_host *host);

/* Device index by (card, device) or by logic ID; -1 when absent. */
int sim_find(const struct sim_host *host, int card_id, int device_id);

/*
 * Runs fn under the state lock with the mapped state; returns fn's result, or -8006 when the lock
 * is not obtained within SIM_LOCK_TIMEOUT_MS, -8014 on a file error.
 */
int sim_with_state(const struct sim_host *host, int (*fn)(struct sim_state *st, void *arg), void *arg);

/* The template `name` on chip `chip_name`, or NULL. */
const struct sim_template *sim_template_find(const char *chip_name, const char *name);
uint64_t sim_template_mem_mb(const struct sim_template *t, const struct vnpu_sim_device_info *dev);

/* First vNPU ID of a chip and the size of its ID range (8 inference, 16 training). */
uint32_t sim_vdev_base(const struct vnpu_sim_device_info *dev);
uint32_t sim_vdev_range(const struct vnpu_sim_device_info *dev);

/* Remaining resources of a chip after its vNPUs. */
struct sim_free {
    uint32_t ai_cores;
    uint32_t ai_cpus;
    uint64_t mem_mb;
};
void sim_free_resources(const struct vnpu_sim_device_info *dev, const struct sim_chip *chip, struct sim_free *out);

/*
 * Creates a vNPU from a template on device index idx (state locked): validates the template against
 * the remaining resources and picks the lowest free ID (or `want` when not 0xFFFFFFFF).
 * Returns 0 and the ID, -8001 unknown template or bad ID, -8020 resources exhausted / ID taken.
 */
int sim_vdev_create(const struct vnpu_sim_device_info *dev, struct sim_chip *chip, const char *template_name,
                    uint32_t want, uint32_t *vdev_id, uint32_t *vfg_id);
/* 0, -8007 unknown vNPU, -8020 in use. */
int sim_vdev_destroy(struct sim_chip *chip, uint32_t vdev_id);
struct sim_vdev *sim_vdev_find(struct sim_chip *chip, uint32_t vdev_id);

/* Device-memory bytes in use on logic ID (from $root/hbm.bin; 0 when the file is absent). */
uint64_t sim_hbm_used_bytes(const struct sim_host *host, int logic_id);

#endif
