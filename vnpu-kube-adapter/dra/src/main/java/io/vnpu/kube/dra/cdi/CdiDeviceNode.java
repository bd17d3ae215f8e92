package io.vnpu.kube.dra.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * A CDI device node.
 *
 * @param path path in the container, e.g. {@code /dev/davinci3}
 * @param hostPath path on the host when it differs from {@code path} (CDI 0.5.0), else null
 * @param type {@code c} or {@code b} for a device special file, null when not one (a simulated
 *     host's stand-in file)
 * @param major device major number, null with {@code type}
 * @param minor device minor number, null with {@code type}
 * @param permissions cgroup access, {@code rwm}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"path", "hostPath", "type", "major", "minor", "permissions"})
public record CdiDeviceNode(
    String path, String hostPath, String type, Long major, Long minor, String permissions) {
  public CdiDeviceNode {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("device node path must be absolute: " + path);
    }
  }
}
