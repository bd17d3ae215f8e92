package io.vnpu.kube.dra.cdi;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.api.slice.Mount;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The shared slice model's {@link ContainerEdits} written as CDI {@code containerEdits}: env {@code
 * NAME=value} in insertion order; device nodes examined on the host ({@link DeviceNodeProbe}: type
 * and major/minor of a real device, a missing one is an error naming it); mounts as bind mounts
 * ({@code ro} when read-only).
 */
public final class CdiEdits {
  private static final List<String> READ_WRITE_BIND = List.of("nosuid", "nodev", "bind");

  private final DeviceNodeProbe probe;

  public CdiEdits(DeviceNodeProbe probe) {
    this.probe = Objects.requireNonNull(probe, "probe");
  }

  /**
   * @throws MissingDeviceNodeException naming the host path of a device node that does not exist
   * @throws IOException when a device node cannot be examined
   */
  public CdiContainerEdits of(ContainerEdits edits) throws IOException {
    List<String> env = new ArrayList<>();
    edits.env().forEach((k, v) -> env.add(k + "=" + v));
    List<CdiDeviceNode> nodes = new ArrayList<>();
    for (DeviceNode n : edits.deviceNodes()) {
      CdiDeviceNode probed = probe.probe(n.containerPath(), Path.of(n.hostPath()));
      nodes.add(
          new CdiDeviceNode(
              probed.path(),
              probed.hostPath(),
              probed.type(),
              probed.major(),
              probed.minor(),
              n.permissions()));
    }
    List<CdiMount> mounts = new ArrayList<>();
    for (Mount m : edits.mounts()) {
      mounts.add(
          new CdiMount(
              m.hostPath(),
              m.containerPath(),
              m.readOnly() ? CdiMount.READ_ONLY_BIND : READ_WRITE_BIND));
    }
    return new CdiContainerEdits(env, nodes, mounts);
  }
}
