package io.vnpu.kube.resource;

import java.util.List;
import java.util.Objects;

/**
 * One device as advertised to the kubelet in ListAndWatch.
 *
 * @param id device ID the kubelet will pass back in Allocate (HAMi: the fake IDs of section 1.3)
 * @param healthy advertised as {@code Healthy} when true, {@code Unhealthy} otherwise
 * @param numaNodes NUMA nodes of the device (TopologyInfo); empty when unknown
 */
public record PluginDevice(String id, boolean healthy, List<Integer> numaNodes) {
  public PluginDevice {
    Objects.requireNonNull(id, "id");
    numaNodes = List.copyOf(numaNodes);
  }
}
