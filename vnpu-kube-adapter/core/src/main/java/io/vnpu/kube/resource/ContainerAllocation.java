package io.vnpu.kube.resource;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.api.slice.Mount;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one container gets: one ContainerAllocateResponse (environment in insertion order, mounts,
 * device nodes, CRI annotations, CDI device names).
 */
public record ContainerAllocation(
    Map<String, String> envs,
    List<Mount> mounts,
    List<DeviceNode> devices,
    Map<String, String> annotations,
    List<String> cdiDevices) {
  public ContainerAllocation {
    envs = Collections.unmodifiableMap(new LinkedHashMap<>(envs));
    mounts = List.copyOf(mounts);
    devices = List.copyOf(devices);
    annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
    cdiDevices = List.copyOf(cdiDevices);
  }

  /** The response carrying a slice's container edits, annotations and CDI device names. */
  public static ContainerAllocation of(
      ContainerEdits edits, Map<String, String> annotations, List<String> cdiDevices) {
    return new ContainerAllocation(
        edits.env(), edits.mounts(), edits.deviceNodes(), annotations, cdiDevices);
  }
}
