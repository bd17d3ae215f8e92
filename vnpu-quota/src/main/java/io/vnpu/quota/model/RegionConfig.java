package io.vnpu.quota.model;

import io.vnpu.quota.layout.RegionLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Configuration written into a quota region: one {@link DeviceQuota} per logical device of the
 * container (index = logical device ID as {@code rtGetDevice} reports it inside the container), policy
 * flags, and the directory of the per-NPU compute registry files (empty = none).
 */
public record RegionConfig(List<DeviceQuota> devices, Set<PolicyFlag> policy, String registryDir) {

  public RegionConfig {
    devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
    policy = Set.copyOf(Objects.requireNonNull(policy, "policy"));
    Objects.requireNonNull(registryDir, "registryDir");
    if (devices.isEmpty() || devices.size() > RegionLayout.REGION_MAX_DEVICES) {
      throw new IllegalArgumentException("devices must hold 1..16 entries: " + devices.size());
    }
    if (registryDir.getBytes(StandardCharsets.UTF_8).length >= RegionLayout.REGION_PATH_BYTES) {
      throw new IllegalArgumentException("registryDir longer than 255 bytes: " + registryDir);
    }
  }

  /** Memory enforcement only, the same limit in bytes on each of {@code deviceCount} devices. */
  public static RegionConfig memoryLimit(int deviceCount, long memLimitBytes) {
    return new RegionConfig(
        java.util.Collections.nCopies(deviceCount, DeviceQuota.memoryOnly(memLimitBytes)),
        Set.of(PolicyFlag.MEM_ENFORCE),
        "");
  }

  /** A copy with other device quotas. */
  public RegionConfig withDevices(List<DeviceQuota> newDevices) {
    return new RegionConfig(newDevices, policy, registryDir);
  }
}
