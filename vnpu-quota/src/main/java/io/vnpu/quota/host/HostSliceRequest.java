package io.vnpu.quota.host;

import io.vnpu.api.slice.SliceDevice;
import java.util.List;
import java.util.Objects;

/**
 * A soft slice of one NPU on this host, as {@code vnpu run} or an embedder asks for it.
 *
 * @param name slice name, {@code [A-Za-z0-9][A-Za-z0-9._-]{0,62}} (unique in the state directory)
 * @param logicId DCMI logic ID of the NPU on this host (what the workload's CANN sees)
 * @param device the NPU by phy ID / UUID with its {@link io.vnpu.api.slice.SliceShare.SoftQuota}; a
 *     compute weight of 0 becomes 1 (a host slice always takes part in the share)
 * @param command the command the slice runs, for display in {@code vnpu top} (may be empty)
 * @throws IllegalArgumentException when the device's share is not a soft quota or the name is
 *     invalid
 */
public record HostSliceRequest(String name, int logicId, SliceDevice device, List<String> command) {
  public HostSliceRequest {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(device, "device");
    command = List.copyOf(command);
    SliceRecord.checkName(name);
    if (logicId < 0) throw new IllegalArgumentException("logicId must be >= 0: " + logicId);
    try {
      device.softQuota();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException("a host slice needs a soft quota: " + e.getMessage(), e);
    }
  }
}
