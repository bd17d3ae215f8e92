package io.vnpu.kube.mindcluster.health;

import java.util.List;
import java.util.Objects;

/**
 * What one chip's health is, decided by a {@link ChipHealthSource}: whether it may be handed out,
 * whether its parameter-plane network is up, its most severe fault level and its active faults.
 *
 * @param healthy        advertised {@code Healthy} to the kubelet and listed as free in the ConfigMap
 * @param networkHealthy false puts the chip in {@code -NetworkUnhealthy}
 * @param level          MindCluster level of the chip, {@code NormalNPU} when it has no fault
 * @param faults         active faults, in the order the source reports them
 */
public record ChipHealth(boolean healthy, boolean networkHealthy, String level, List<ChipFault> faults) {
  /** Level of a chip without any fault. */
  public static final String NORMAL = "NormalNPU";
  /** A healthy chip without faults. */
  public static final ChipHealth HEALTHY = new ChipHealth(true, true, NORMAL, List.of());

  public ChipHealth {
    Objects.requireNonNull(level, "level");
    faults = List.copyOf(faults);
  }
}
