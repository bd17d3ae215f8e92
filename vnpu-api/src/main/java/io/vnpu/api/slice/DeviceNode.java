package io.vnpu.api.slice;

import java.util.Objects;

/**
 * A device node exposed to the container (device plugin AllocateResponse {@code devices}, CDI
 * {@code containerEdits.deviceNodes}).
 *
 * @param permissions a combination of {@code r}, {@code w} and {@code m}, e.g. {@code rwm}
 */
public record DeviceNode(String containerPath, String hostPath, String permissions) {
  public DeviceNode {
    Objects.requireNonNull(containerPath, "containerPath");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(permissions, "permissions");
    if (!permissions.matches("r?w?m?") || permissions.isEmpty()) {
      throw new IllegalArgumentException(
          "permissions must be a non-empty combination of r, w, m in that order: " + permissions);
    }
  }
}
