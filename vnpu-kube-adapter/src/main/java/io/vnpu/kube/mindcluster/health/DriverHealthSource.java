package io.vnpu.kube.mindcluster.health;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chip health straight from the driver ({@link DeviceManager#health(int)}), without a fault-code
 * table: a healthy chip is {@code NormalNPU}; an unhealthy one carries its fault code (if the
 * driver gave one) at level {@value #UNKNOWN_CODE_LEVEL}, which is what MindCluster assigns to a
 * code it has no level for and whose severity it does not know (spec section 3.5). The time a code
 * was first seen is kept per chip until the chip recovers.
 */
public final class DriverHealthSource implements ChipHealthSource {
  /** Level of a fault whose code has no configured level. */
  public static final String UNKNOWN_CODE_LEVEL = "SeparateNPU";

  private final DeviceManager deviceManager;
  private final Clock clock;
  /** logic ID → (code → first seen). */
  private final Map<Integer, Map<Long, Instant>> firstSeen = new ConcurrentHashMap<>();

  public DriverHealthSource(DeviceManager deviceManager, Clock clock) {
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public ChipHealth health(Npu npu) {
    DeviceHealth h = deviceManager.health(npu.logicId());
    if (h.healthy()) {
      firstSeen.remove(npu.logicId());
      return ChipHealth.HEALTHY;
    }
    if (h.faultCode() == 0) {
      firstSeen.remove(npu.logicId());
      return new ChipHealth(false, true, UNKNOWN_CODE_LEVEL, List.of());
    }
    Map<Long, Instant> seen = firstSeen.computeIfAbsent(npu.logicId(), k -> new ConcurrentHashMap<>());
    seen.keySet().retainAll(List.of(h.faultCode()));
    Instant since = seen.computeIfAbsent(h.faultCode(), c -> clock.instant());
    return new ChipHealth(false, true, UNKNOWN_CODE_LEVEL,
        List.of(new ChipFault(h.faultCode(), ChipFault.Kind.CHIP, UNKNOWN_CODE_LEVEL, since)));
  }
}
