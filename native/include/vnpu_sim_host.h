/*
 * The simulated Ascend host shared by the simulated libdcmi.so and the simulated CANN runtime
 * (libruntime.so). Test tooling only: the limiter (libvnpu.so) must never include this header.
 *
 * Contract between the two simulators:
 *  - VNPU_SIM_PROFILE names the host profile (default "910B3x8"); VNPU_SIM_ROOT is the state
 *    directory shared by every process of the simulated host (default "/tmp/vnpu-sim-<uid>").
 *  - vnpu_sim_host_devices() gives the static facts of the profile's devices, ordered by logic ID.
 *    Implemented in native/sim-common/sim_host.c, linked (as an object) into both simulators.
 *  - Device-memory usage lives in "$VNPU_SIM_ROOT/hbm.bin": VNPU_SIM_MAX_DEVICES little-endian
 *    uint64 counters of used bytes, indexed by logic ID, updated with __atomic operations through a
 *    MAP_SHARED mapping. The CANN simulator owns the writes; the DCMI simulator reads them for its
 *    memory/HBM info.
 */
#ifndef VNPU_SIM_HOST_H
#define VNPU_SIM_HOST_H

#include <stdint.h>

#define VNPU_SIM_MAX_DEVICES 16
#define VNPU_SIM_CHIP_NAME_LEN 32
#define VNPU_SIM_PRODUCT_LEN 64

struct vnpu_sim_device_info {
    int logic_id;
    int phy_id;
    int card_id;
    int device_id;                          /* index of the chip within its card */
    char chip_type[VNPU_SIM_CHIP_NAME_LEN]; /* e.g. "Ascend" */
    char chip_name[VNPU_SIM_CHIP_NAME_LEN]; /* e.g. "910B3" */
    uint64_t hbm_bytes;                     /* device memory capacity in bytes */
    uint32_t ai_cores;
    uint32_t ai_cpus;
    char product_type[VNPU_SIM_PRODUCT_LEN]; /* dcmi_get_product_type, "" = the product has none */
    uint8_t roce_ip4[4];                     /* parameter-plane (RoCE) IPv4 address, 0.0.0.0 = none */
    uint32_t board_id;                       /* dcmi_board_info.board_id, 0 = by chip name */
};

/*
 * Fills up to max entries with the devices of the current profile; returns the number of devices,
 * or a negative errno value (-EINVAL for an unknown profile name).
 */
int vnpu_sim_host_devices(struct vnpu_sim_device_info *out, int max);

/* Writes the state directory path (created if missing, mode 0777) into buf; 0 or negative errno. */
int vnpu_sim_host_root(char *buf, unsigned long len);

#endif
