package io.vnpu.kube.resource;

import java.util.Objects;

/** A host path bind-mounted into the container (AllocateResponse {@code mounts}). */
public record MountSpec(String containerPath, String hostPath, boolean readOnly) {
  public MountSpec {
    Objects.requireNonNull(containerPath, "containerPath");
    Objects.requireNonNull(hostPath, "hostPath");
  }
}
