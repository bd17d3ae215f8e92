package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The ResourceSlice device taints ({@code resource.k8s.io/v1} {@code DeviceTaint}) of a chip's
 * health; pure. An unhealthy chip keeps its device in the slice, tainted; a chip with no fault has
 * no taint, so a recovered chip is untainted at the next publish.
 *
 * <ul>
 *   <li>{@code <driver>/unhealthy}: the chip has a fault, is separated or is being reset. Effect
 *       {@code NoSchedule} when the chip may not take new workloads ({@link ChipHealth#healthy()}
 *       false, {@link FaultLevel#allowsScheduling()} false, or a reset in progress), {@code None}
 *       for informational levels (NotHandleFault, SubHealthFault). Value: the most severe fault's
 *       code as in {@code faultCode.json} ({@code 80E01801}), or the level term ({@code
 *       ManuallySeparateNPU}, {@code Recovering}) when no fault code explains it.
 *   <li>{@code <driver>/network-unhealthy}: the parameter-plane network has a fault; effect {@code
 *       NoSchedule} when {@link ChipHealth#networkHealthy()} is false, else {@code None}; value as
 *       above at the network level.
 * </ul>
 *
 * {@code timeAdded} is left to the API server.
 */
public final class NpuDeviceTaints {
  public static final String UNHEALTHY = "unhealthy";
  public static final String NETWORK_UNHEALTHY = "network-unhealthy";
  public static final String NO_SCHEDULE = "NoSchedule";
  public static final String NONE = "None";

  private final String driverName;

  /**
   * @param driverName the driver's domain, e.g. {@code npu.huawei.com}; prefix of every key
   */
  public NpuDeviceTaints(String driverName) {
    this.driverName = Objects.requireNonNull(driverName, "driverName");
  }

  /** The key of the chip taint, e.g. {@code npu.huawei.com/unhealthy}. */
  public String unhealthyKey() {
    return driverName + "/" + UNHEALTHY;
  }

  /** The key of the network taint, e.g. {@code npu.huawei.com/network-unhealthy}. */
  public String networkUnhealthyKey() {
    return driverName + "/" + NETWORK_UNHEALTHY;
  }

  /** The taints of a chip with {@code health}, chip taint first; empty for a chip without fault. */
  public List<DeviceTaint> of(ChipHealth health) {
    List<DeviceTaint> out = new ArrayList<>(2);
    if (!health.healthy() || health.resetting() || health.level() != FaultLevel.NORMAL_NPU) {
      boolean unusable =
          !health.healthy() || health.resetting() || !health.level().allowsScheduling();
      String value =
          code(health, health.level())
              .orElse(health.resetting() ? "Recovering" : health.level().term());
      out.add(taint(unhealthyKey(), value, unusable));
    }
    if (!health.networkHealthy() || health.networkLevel() != FaultLevel.NORMAL_NPU) {
      String value = code(health, health.networkLevel()).orElse(health.networkLevel().term());
      out.add(taint(networkUnhealthyKey(), value, !health.networkHealthy()));
    }
    return List.copyOf(out);
  }

  private static java.util.Optional<String> code(ChipHealth health, FaultLevel level) {
    return health.faults().stream()
        .filter(f -> f.level() == level)
        .map(ActiveFault::code)
        .map(c -> c.hex())
        .findFirst();
  }

  private static DeviceTaint taint(String key, String value, boolean noSchedule) {
    return new DeviceTaintBuilder()
        .withKey(key)
        .withValue(value)
        .withEffect(noSchedule ? NO_SCHEDULE : NONE)
        .build();
  }
}
