package io.vnpu.kube.hami.devices;

import io.vnpu.api.model.Npu;
import io.vnpu.kube.resource.PluginDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable snapshot of the node's (filtered) NPUs with their health, in logic-ID order; the
 * position in {@link #npus()} is the register {@code index}.
 */
public record NodeDevices(List<Npu> npus) {
  public NodeDevices {
    npus = List.copyOf(npus);
  }

  public static final NodeDevices EMPTY = new NodeDevices(List.of());

  /** The NPU with this die-ID UUID. */
  public Optional<Npu> byUuid(String uuid) {
    return npus.stream().filter(n -> n.uuid().equals(uuid)).findFirst();
  }

  /**
   * The kubelet devices (protocol spec section 1.3): {@code vDeviceCount} fake IDs {@code
   * <UUID>-<i>} per NPU, each with its NPU's health, NPU order then {@code i}.
   */
  public List<PluginDevice> pluginDevices(int vDeviceCount) {
    List<PluginDevice> out = new ArrayList<>(npus.size() * Math.max(0, vDeviceCount));
    for (Npu n : npus) {
      List<Integer> numa = n.numaNode() >= 0 ? List.of(n.numaNode()) : List.of();
      for (int i = 0; i < vDeviceCount; i++) {
        out.add(new PluginDevice(FakeDeviceId.of(n.uuid(), i), n.health().healthy(), numa));
      }
    }
    return out;
  }

  /** UUID → health, for change detection. */
  Map<String, Boolean> healthByUuid() {
    Map<String, Boolean> m = new LinkedHashMap<>();
    for (Npu n : npus) m.put(n.uuid(), n.health().healthy());
    return m;
  }
}
