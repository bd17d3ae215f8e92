/*
 * Device nodes of the simulated host, under $VNPU_SIM_ROOT/dev: the management nodes
 * (davinci_manager, devmm_svm, hisi_hdc), davinci<phy> per chip and vdavinci<id> per vNPU, as the
 * Ascend driver creates them under /dev. Container runtimes accept only device special files in a
 * CDI spec's deviceNodes and in a device plugin's DeviceSpecs (they stat the host path and create
 * the node in the container with its type, major and minor), so each node is a character device
 * with the numbers of the host's /dev/null (read with stat; 1:3 on Linux): a container that opens
 * it reads nothing and writes into nothing.
 *
 * Creating a device node needs CAP_MKNOD (root). Without it the node is an empty regular file,
 * as before, and one line on stderr says so once per process: the simulator and the adapters
 * still work, but a real runtime refuses the specs (native/dcmi-sim/README.md, "Device nodes").
 */
#ifndef VNPU_DCMI_SIM_DEVNODES_H
#define VNPU_DCMI_SIM_DEVNODES_H

#include "sim_state.h"

/* Creates (or turns a stand-in regular file into) the character device $root/dev/<name>. */
void sim_dev_node_create(const struct sim_host *host, const char *name);

/* Removes $root/dev/<name>. */
void sim_dev_node_remove(const struct sim_host *host, const char *name);

/* The management nodes and davinci<phy> of every chip of the profile. */
void sim_dev_nodes_create(const struct sim_host *host);

#endif
