package io.vnpu.kube.agent;

import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Units;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.dcmi.Dcmi;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.kube.metrics.NpuTelemetry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * {@link NpuTelemetry} over the agent's driver port: health from the node's {@link HealthSource}
 * (the one every adapter reads, fault code included), vNPU count from any {@link DeviceManager};
 * HBM use and AI Core utilisation from DCMI when the manager is a {@link DcmiDeviceManager} ({@code
 * dcmi_get_device_hbm_info}, {@code dcmi_get_device_utilization_rate} with input type 2), else
 * absent. A failing driver call leaves that value absent.
 */
public final class DeviceManagerTelemetry implements NpuTelemetry {
  private final DeviceManager devices;
  private final List<Npu> npus;
  private final HealthSource health;

  public DeviceManagerTelemetry(DeviceManager devices, List<Npu> npus, HealthSource health) {
    this.devices = Objects.requireNonNull(devices, "devices");
    this.health = Objects.requireNonNull(health, "health");
    this.npus = List.copyOf(npus);
  }

  @Override
  public List<Npu> npus() {
    return npus;
  }

  @Override
  public Optional<DeviceHealth> health(Npu npu) {
    try {
      return Optional.of(health.chip(npu.logicId()).toDeviceHealth());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  @Override
  public OptionalLong hbmUsedBytes(Npu npu) {
    if (!(devices instanceof DcmiDeviceManager d)) return OptionalLong.empty();
    try {
      return d.dcmi()
          .hbmInfo(npu.cardId(), npu.deviceId())
          .map(m -> OptionalLong.of(m.usedMb() * Units.MIB))
          .orElse(OptionalLong.empty());
    } catch (DeviceException | IllegalArgumentException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public OptionalDouble aiCoreUtilization(Npu npu) {
    if (!(devices instanceof DcmiDeviceManager d)) return OptionalDouble.empty();
    try {
      OptionalInt pct = d.dcmi().utilization(npu.cardId(), npu.deviceId(), Dcmi.UTIL_AICORE);
      return pct.isPresent() && pct.getAsInt() >= 0
          ? OptionalDouble.of(pct.getAsInt() / 100.0)
          : OptionalDouble.empty();
    } catch (DeviceException | IllegalArgumentException e) {
      return OptionalDouble.empty();
    }
  }

  @Override
  public OptionalInt vnpuCount(Npu npu) {
    try {
      return OptionalInt.of(devices.listVnpus(npu.logicId()).size());
    } catch (DeviceException | IllegalArgumentException | UnsupportedOperationException e) {
      return OptionalInt.empty();
    }
  }
}
