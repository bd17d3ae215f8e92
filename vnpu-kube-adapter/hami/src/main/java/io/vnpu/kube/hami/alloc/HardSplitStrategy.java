package io.vnpu.kube.hami.alloc;

/** Who creates the vNPU of a hard-split container. */
public enum HardSplitStrategy {
  /**
   * Upstream behaviour: Allocate returns {@code ASCEND_VISIBLE_DEVICES=<phy IDs>} and {@code
   * ASCEND_VNPU_SPECS=<template>}; the Ascend Docker Runtime creates the vNPU at container create
   * and destroys it in a Poststop hook.
   */
  RUNTIME_CREATES_VNPU,
  /**
   * Allocate creates the vNPU through the {@code DeviceManager} and returns {@code
   * ASCEND_VISIBLE_DEVICES=<vNPU IDs>} with {@code ASCEND_RUNTIME_OPTIONS=VIRTUAL}; the idle
   * cleanup reclaims it once the container is gone (after its grace period).
   */
  PLUGIN_CREATES_VNPU
}
