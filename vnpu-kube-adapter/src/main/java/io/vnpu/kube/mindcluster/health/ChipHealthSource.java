package io.vnpu.kube.mindcluster.health;

import io.vnpu.api.model.Npu;

/**
 * The one place a chip's health and fault list come from. The backend asks it for every chip once
 * per {@code -listWatchPeriod}; ListAndWatch, the device-info ConfigMap and Allocate all use that
 * answer. {@link DriverHealthSource} reads the driver's health; a fault-level engine (fault codes
 * table, frequency and duration escalation, manual separation) replaces it through this interface.
 * Implementations are thread-safe and never throw for a failing chip: a failure is an unhealthy
 * answer.
 */
@FunctionalInterface
public interface ChipHealthSource {

  /** The chip's health now. */
  ChipHealth health(Npu npu);
}
