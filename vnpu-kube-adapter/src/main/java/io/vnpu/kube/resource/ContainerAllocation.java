package io.vnpu.kube.resource;

import java.util.List;
import java.util.Map;

/** What one container gets: one ContainerAllocateResponse. */
public record ContainerAllocation(
    Map<String, String> envs,
    List<MountSpec> mounts,
    List<DeviceNodeSpec> devices,
    Map<String, String> annotations,
    List<String> cdiDevices) {
  public ContainerAllocation {
    envs = Map.copyOf(envs);
    mounts = List.copyOf(mounts);
    devices = List.copyOf(devices);
    annotations = Map.copyOf(annotations);
    cdiDevices = List.copyOf(cdiDevices);
  }
}
