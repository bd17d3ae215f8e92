package io.vnpu.kube.dra.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * A CDI mount. No {@code type} field, so the spec stays readable as CDI 0.3.0; {@code bind} in the
 * options makes it a bind mount.
 *
 * @param hostPath absolute path on the host
 * @param containerPath absolute path in the container
 * @param options mount options, e.g. {@code ro, nosuid, nodev, bind}
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"hostPath", "containerPath", "options"})
public record CdiMount(String hostPath, String containerPath, List<String> options) {
  /** Options of a read-only bind mount of driver files. */
  public static final List<String> READ_ONLY_BIND = List.of("ro", "nosuid", "nodev", "bind");

  public CdiMount {
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(containerPath, "containerPath");
    options = options == null ? List.of() : List.copyOf(options);
  }
}
