package io.vnpu.kube.faults;

import io.vnpu.api.health.ChipHealth;
import java.util.ArrayList;
import java.util.List;

/**
 * The DRA device taints of a chip's health (dra-kubelet-plugin spec section 4.6, gate {@code
 * DRADeviceTaints}): an unhealthy chip keeps its device in the ResourceSlice with taint {@code
 * npu.huawei.com/unhealthy} (value: the fault level), a chip whose parameter-plane network is
 * unhealthy with {@code npu.huawei.com/network-unhealthy}; effect NoSchedule (NoExecute would evict
 * running pods). A healthy chip has none, so a recovered chip loses its taints.
 */
public final class DeviceTaints {
  public static final String UNHEALTHY = "npu.huawei.com/unhealthy";
  public static final String NETWORK_UNHEALTHY = "npu.huawei.com/network-unhealthy";
  public static final String NO_SCHEDULE = "NoSchedule";

  private DeviceTaints() {}

  /** One taint: {@code key}, {@code value} (at most 63 characters), {@code effect}. */
  public record Taint(String key, String value, String effect) {}

  /** The taints for a chip's health, chip first. */
  public static List<Taint> of(ChipHealth health) {
    List<Taint> out = new ArrayList<>(2);
    if (!health.healthy()) {
      out.add(
          new Taint(
              UNHEALTHY, health.resetting() ? "Recovering" : health.level().term(), NO_SCHEDULE));
    }
    if (!health.networkHealthy())
      out.add(new Taint(NETWORK_UNHEALTHY, health.networkLevel().term(), NO_SCHEDULE));
    return List.copyOf(out);
  }
}
