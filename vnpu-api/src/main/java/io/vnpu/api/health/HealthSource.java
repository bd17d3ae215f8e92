package io.vnpu.api.health;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The one place every adapter reads chip health from (HAMi register annotation and ListAndWatch,
 * MindCluster device-info ConfigMap, DRA taints, {@code vnpu devices}/{@code vnpu top}). A chip
 * that recovers becomes healthy again here, and so everywhere. Thread-safe.
 */
public interface HealthSource {

  /** Health of every watched chip by logic ID, ascending; chips never read yet are NormalNPU. */
  Map<Integer, ChipHealth> chips();

  /** Health of one chip; NormalNPU for a chip this source does not watch. */
  default ChipHealth chip(int logicId) {
    return chips().getOrDefault(logicId, ChipHealth.normal(logicId));
  }

  /**
   * Calls {@code onChange} with the new snapshot after every change of any chip's health (on the
   * source's thread; keep it short). Close the handle to stop.
   */
  AutoCloseable watch(Consumer<Map<Integer, ChipHealth>> onChange);

  /** Longest time between a fault appearing in the driver and showing here. */
  Duration pollPeriod();
}
