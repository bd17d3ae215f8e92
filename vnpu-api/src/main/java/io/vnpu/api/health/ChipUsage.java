package io.vnpu.api.health;

/**
 * Port telling whether a workload holds a chip: kubelet's PodResources API (a container was
 * allocated it) and the driver's process list ({@code dcmi_get_device_resource_info}).
 */
@FunctionalInterface
public interface ChipUsage {
  /** Nothing is ever in use (hosts without a workload view). */
  ChipUsage NONE = logicId -> false;

  /**
   * True when a container or a process uses the chip; an implementation that cannot tell must
   * answer true (a reset must never hit a chip in use).
   */
  boolean inUse(int logicId);
}
