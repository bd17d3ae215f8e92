package io.vnpu.api.slice;

import java.util.Objects;

/**
 * A host path bind-mounted into the container (device plugin AllocateResponse {@code mounts}, CDI
 * {@code containerEdits.mounts}).
 */
public record Mount(String containerPath, String hostPath, boolean readOnly) {
  public Mount {
    Objects.requireNonNull(containerPath, "containerPath");
    Objects.requireNonNull(hostPath, "hostPath");
  }
}
