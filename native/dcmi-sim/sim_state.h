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
#define SIM_STATE_VERSION 5u /* 2: fault events, link, reset, processes; 3: blocking network health; 4: RoCE IP;
                                 5: super-pod info, LingQu switch faults */
#define SIM_MAX_SWITCH_FAULTS 64 /* active faults of the node's LingQu (HCCS) switch chips */
#define SIM_LOCK_TIMEOUT_MS 5000
#define SIM_MAX_PROCS 32      /* dcmi_get_device_resource_info fills at most 32 entries */
#define SIM_EVENT_RING 64     /* fault events kept for subscribers */
#define SIM_DEFAULT_BOOT_MS 400 /* a reset chip walks boot states 0,1,2,3 then 16 over this time */

struct sim_vdev {
    uint32_t id; /* 0 = free slot */
    uint32_t vfg_id;
    uint32_t in_use; /* is_container_used */
    uint32_t aicore_util;
    uint64_t container_id;
    char template_name[SIM_TEMPLATE_LEN];
};

/* A host process holding device memory on a chip (dcmi_get_device_resource_info). */
struct sim_proc {
    int32_t pid;
    uint32_t reserved;
    uint64_t mem_bytes;
};

struct sim_chip {
    uint32_t health;  /* 0 ok, 1 minor, 2 major, 3 critical */
    uint32_t dropped; /* card dropped: health queries return -8012 */
    uint32_t fault_count;
    uint32_t faults[SIM_MAX_FAULTS];
    uint32_t aicore_util;
    struct sim_vdev vdevs[SIM_MAX_VDEV];
    /* version 2 */
    uint32_t link_down;   /* parameter-plane link down: network health reports UNREACH */
    uint32_t reset_fail;  /* the next N dcmi_set_device_reset calls return -8015 */
    uint32_t reset_hang;  /* after a reset the chip stays in BIOS (boot status 1) */
    uint32_t resets;      /* successful resets so far */
    uint64_t reset_at_ms; /* CLOCK_REALTIME ms of the last reset, 0 = never */
    uint32_t proc_count;
    uint32_t net_block_ms; /* dcmi_get_device_network_health blocks this long (a dropped card's RoCE) */
    struct sim_proc procs[SIM_MAX_PROCS];
    /* version 4: the RoCE address as an operator's hccn_tool would set it */
    uint32_t ip_override; /* SIM_IP_PROFILE, SIM_IP_SET (ip_type/ip below) or SIM_IP_NONE */
    uint32_t ip_type;     /* DCMI_IPADDR_TYPE_V4 or DCMI_IPADDR_TYPE_V6 */
    uint8_t ip[16];       /* IPv4 in the first 4 bytes */
};

#define SIM_IP_PROFILE 0u
#define SIM_IP_SET 1u
#define SIM_IP_NONE 2u

/* One fault event as dcmi_subscribe_fault_event delivers it. */
struct sim_event {
    uint64_t seq; /* 1, 2, ...: subscribers deliver each sequence number once */
    uint32_t code;
    uint32_t logic_id;
    uint8_t severity;  /* 0 warning .. 3 critical */
    uint8_t assertion; /* 0 recovered, 1 occurred, 2 one-shot */
    uint8_t reserved[6];
    uint64_t raised_s; /* alarm_raised_time */
};

/* One active LingQu switch fault, as liblingqu-dcmi.so's lq_dcmi_get_fault_info reports it. */
struct sim_switch_fault {
    uint32_t event_type; /* HalReportFaultType */
    uint32_t sub_type;
    uint16_t peer_device; /* 0 CPU, 1 NPU, 2 switch, 0xFFFF none */
    uint16_t peer_port;
    uint16_t chip_id;
    uint16_t port_id;
    uint8_t severity; /* 0 notice .. 3 critical */
    uint8_t reserved[7];
    uint64_t raised_s;
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
    /* version 2 */
    uint32_t boot_ms;   /* reset boot time, 0 = SIM_DEFAULT_BOOT_MS */
    uint32_t reserved;
    uint64_t event_seq; /* sequence number of the newest event */
    struct sim_event events[SIM_EVENT_RING];
    /* version 5 */
    uint32_t spod_set;     /* super-pod info set by vnpu-sim-ctl spod (else the A3 default) */
    uint32_t super_pod_id; /* 0xFFFFFFFF: the driver knows none */
    uint32_t server_id;
    uint32_t switch_fault_count;
    struct sim_switch_fault switch_faults[SIM_MAX_SWITCH_FAULTS];
};

/* A vNPU template and what it takes from its chip. */
struct sim_template {
    const char *chip_prefix; /* chip_name prefix it applies to */
    uint32_t chip_ai_cores;  /* and the chip's AI Core count (0 = any): the A3 SKUs share one chip name */
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

/* As sim_with_state, but never creates the root's files: -8014 when the host's state is gone. */
int sim_with_existing_state(const struct sim_host *host, int (*fn)(struct sim_state *st, void *arg), void *arg);

/* The template `name` on chip `chip_name`, or NULL. */
const struct sim_template *sim_template_find(const struct vnpu_sim_device_info *dev, const char *name);
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

/* Appends a fault event (state locked); the oldest falls out of the ring. */
void sim_event_push(struct sim_state *st, int logic_id, uint32_t code, uint8_t severity, uint8_t assertion);

/*
 * Fault list edits that also raise the matching event, as the driver does (state locked):
 * add raises "occurred" (no-op when present), remove raises "recovered" (no-op when absent).
 * 0, or -8020 when the list is full.
 */
int sim_fault_add(struct sim_state *st, int logic_id, uint32_t code, uint8_t severity);
void sim_fault_remove(struct sim_state *st, int logic_id, uint32_t code);
void sim_faults_clear(struct sim_state *st, int logic_id);

/* CLOCK_REALTIME in ms (shared by every process of the host). */
uint64_t sim_now_ms(void);

/* Boot status of a chip now: 16 when up, 0..3 while booting after a reset (1 for ever when hung). */
unsigned sim_boot_status(const struct sim_state *st, const struct sim_chip *chip);

/* Device-memory bytes in use on logic ID (from $root/hbm.bin; 0 when the file is absent). */
uint64_t sim_hbm_used_bytes(const struct sim_host *host, int logic_id);

#endif
