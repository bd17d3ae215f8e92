package io.vnpu.kube.hami.config;

import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.NodeSettings;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * This node's settings: the global {@code vnpus.hamiVnpuCore} switch resolved against the node's
 * {@code node-config.yaml} entry (protocol spec section 5.4).
 *
 * @param hamiVnpuCore true when the node soft-slices (hami-vnpu-core mode)
 * @param vDeviceCount node override of VDeviceCount, 0 when not set
 * @param filterUuids die-ID UUIDs hidden from the scheduler and the kubelet
 * @param filterCardIds DCMI card IDs hidden likewise ({@code filterDevices.index})
 */
public record HamiNodeSettings(
    boolean hamiVnpuCore, int vDeviceCount, Set<String> filterUuids, Set<Integer> filterCardIds) {
  public HamiNodeSettings {
    if (vDeviceCount < 0)
      throw new IllegalArgumentException("vDeviceCount must be >= 0: " + vDeviceCount);
    filterUuids = Set.copyOf(filterUuids);
    filterCardIds = Set.copyOf(filterCardIds);
  }

  /** A node without a node-config entry. */
  public static HamiNodeSettings defaults(boolean globalHamiVnpuCore) {
    return new HamiNodeSettings(globalHamiVnpuCore, 0, Set.of(), Set.of());
  }

  /**
   * This node's settings from the loaded configs: the node entry's {@code hami-vnpu-core} when
   * present, else the global {@code vnpus.hamiVnpuCore} (upstream treats a missing key as false,
   * bug 9.4), its {@code vDeviceCount} and {@code filterDevices}.
   */
  public static HamiNodeSettings from(DeviceConfig global, Optional<NodeSettings> node) {
    if (node.isEmpty()) return defaults(global.hamiVnpuCore());
    NodeSettings n = node.get();
    return new HamiNodeSettings(
        n.hamiVnpuCore(global.hamiVnpuCore()),
        n.vDeviceCount(),
        new HashSet<>(n.filterDevices().uuids()),
        new HashSet<>(n.filterDevices().cardIds()));
  }
}
