package io.vnpu.kube.resource;

import java.util.Objects;

/**
 * A device node exposed to the container (AllocateResponse {@code devices}).
 *
 * @param permissions a combination of {@code r}, {@code w} and {@code m}, e.g. {@code rwm}
 */
public record DeviceNodeSpec(String containerPath, String hostPath, String permissions) {
  public DeviceNodeSpec {
    Objects.requireNonNull(containerPath, "containerPath");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(permissions, "permissions");
  }
}
