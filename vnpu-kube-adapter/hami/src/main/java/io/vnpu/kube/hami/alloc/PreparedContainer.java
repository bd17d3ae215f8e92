package io.vnpu.kube.hami.alloc;

import io.vnpu.kube.resource.ContainerAllocation;
import java.util.Objects;

/**
 * A container response whose side effects (created vNPUs, region files) are in place, with the
 * action that undoes them if the bind fails afterwards.
 */
public record PreparedContainer(ContainerAllocation allocation, Runnable rollback) {
  public PreparedContainer {
    Objects.requireNonNull(allocation, "allocation");
    Objects.requireNonNull(rollback, "rollback");
  }
}
