package io.vnpu.api.model;

import java.util.Objects;

/**
 * Health of one physical NPU, with the reason when it is not healthy.
 *
 * @param healthy true when the device may be handed to workloads
 * @param reason human-readable cause, empty when healthy (e.g. {@code "fault code 0x80E01801"},
 *     {@code "card dropped (-8012)"}, {@code "dcmi_get_device_health failed: -8001"})
 * @param faultCode the first driver fault code, or 0 when none was reported
 */
public record DeviceHealth(boolean healthy, String reason, long faultCode) {
  public static final DeviceHealth HEALTHY = new DeviceHealth(true, "", 0);

  public DeviceHealth {
    Objects.requireNonNull(reason, "reason");
  }

  /** An unhealthy state with a reason and no fault code. */
  public static DeviceHealth unhealthy(String reason) {
    return new DeviceHealth(false, reason, 0);
  }

  /** An unhealthy state caused by a driver fault code. */
  public static DeviceHealth fault(long faultCode, String reason) {
    return new DeviceHealth(false, reason, faultCode);
  }
}
