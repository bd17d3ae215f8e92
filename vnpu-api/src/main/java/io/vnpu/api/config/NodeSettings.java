package io.vnpu.api.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One node's entry of HAMi's {@code node-config.yaml} ({@code nodes[]}).
 *
 * @param name node name ({@code nodes[].name}), matched against the plugin's node name
 * @param hamiVnpuCore {@code hami-vnpu-core} when the key is present
 * @param vDeviceCount {@code vDeviceCount}: &gt; 0 overrides the computed VDeviceCount, 0 = unset
 * @param filterDevices devices to hide ({@code filterDevices})
 */
public record NodeSettings(
    String name, Optional<Boolean> hamiVnpuCore, int vDeviceCount, DeviceFilter filterDevices) {
  public NodeSettings {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(hamiVnpuCore, "hamiVnpuCore");
    Objects.requireNonNull(filterDevices, "filterDevices");
    if (vDeviceCount < 0) throw new IllegalArgumentException("vDeviceCount must be >= 0");
  }

  /**
   * Whether this node runs soft slicing: its {@code hami-vnpu-core} when present, else the global
   * {@code vnpus.hamiVnpuCore}. (The HAMi plugin treats a missing key as false, which silently
   * turns soft slicing off for any node that has an entry; vnpu falls back to the global value.)
   */
  public boolean hamiVnpuCore(boolean globalDefault) {
    return hamiVnpuCore.orElse(globalDefault);
  }
}
