package io.vnpu.api.fault;

import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultOrigin;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The simplest {@link HealthSource}: asks {@link DeviceManager#health(int)} on every read, with no
 * fault levels, escalation or events (an unhealthy chip is SeparateNPU with the driver's reason).
 * For embedders whose {@link DeviceManager} is not DCMI and for tests; a node agent over DCMI uses
 * a {@link HealthMonitor}. Never pushes changes: readers poll.
 */
public final class LiveDeviceHealth implements HealthSource {
  private final DeviceManager deviceManager;
  private final Clock clock;

  public LiveDeviceHealth(DeviceManager deviceManager, Clock clock) {
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public LiveDeviceHealth(DeviceManager deviceManager) {
    this(deviceManager, Clock.systemUTC());
  }

  @Override
  public Map<Integer, ChipHealth> chips() {
    Map<Integer, ChipHealth> out = new TreeMap<>();
    for (Npu n : deviceManager.discover()) out.put(n.logicId(), chip(n.logicId()));
    return out;
  }

  @Override
  public ChipHealth chip(int logicId) {
    return of(logicId, deviceManager.health(logicId));
  }

  private ChipHealth of(int logicId, DeviceHealth h) {
    if (h.healthy()) return ChipHealth.normal(logicId);
    List<ActiveFault> faults =
        h.faultCode() > 0 && h.faultCode() < (1L << 40)
            ? List.of(
                new ActiveFault(
                    new FaultCode(h.faultCode()),
                    FaultLevel.SEPARATE_NPU,
                    clock.instant(),
                    FaultOrigin.POLL))
            : List.of();
    return new ChipHealth(
        logicId,
        false,
        FaultLevel.SEPARATE_NPU,
        h.reason(),
        true,
        FaultLevel.NORMAL_NPU,
        "",
        faults,
        List.of(),
        false);
  }

  /** Nothing is pushed: the handle does nothing. */
  @Override
  public AutoCloseable watch(Consumer<Map<Integer, ChipHealth>> onChange) {
    Objects.requireNonNull(onChange, "onChange");
    return () -> {};
  }

  /** Health is read on every call. */
  @Override
  public Duration pollPeriod() {
    return Duration.ZERO;
  }
}
