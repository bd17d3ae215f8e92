package io.vnpu.quota.model;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.layout.RegionLayout;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Configuration written into a quota region: one {@link DeviceQuota} per logical device of the
 * container (index = logical device ID as {@code rtGetDevice} reports it inside the container),
 * policy flags, and the directory of the per-NPU compute registry files (empty = none).
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
    long policies =
        policy.stream().filter(f -> (f.bit() & RegionLayout.POLICY_SHARE_MASK) != 0).count();
    if (policies > 1) {
      throw new IllegalArgumentException("at most one sharing policy: " + policy);
    }
  }

  /** The slice's sharing policy, empty when the weight and cap apply as given. */
  public Optional<SharingPolicy> sharingPolicy() {
    return PolicyFlag.sharingPolicy(policy);
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

  /**
   * The region of a soft slice, the one rule for what a slice's region looks like: one entry per
   * device in order, each with its memory limit, its compute weight (100 when the device has no
   * compute share), its ceiling, priority, phy ID and UUID. Memory is always enforced; compute is
   * enforced (fail-open on registry trouble) when any device has a weight; the ceiling is hard when
   * any device has one; the slice's sharing policy (one for all its devices) is the region's.
   *
   * @param devices the slice's devices, each with a {@link SliceShare.SoftQuota}
   * @param registryDir directory of the per-NPU compute registries as the limiter sees it
   * @throws IllegalArgumentException for a device without a soft quota, more than 16 devices, a
   *     UUID longer than 63 bytes, a registry directory longer than 255 bytes, or devices of one
   *     slice with different sharing policies
   */
  public static RegionConfig forSlice(List<SliceDevice> devices, String registryDir) {
    List<DeviceQuota> quotas =
        devices.stream()
            .map(
                d -> {
                  SliceShare.SoftQuota q = d.softQuota();
                  // a fixed share is its own ceiling: written as such, so the region and the
                  // registry say it
                  int cap =
                      q.computeCapPct() == 0
                              && q.policy().equals(Optional.of(SharingPolicy.FIXED_SHARE))
                          ? Math.min(q.computeWeight(), 100)
                          : q.computeCapPct();
                  return new DeviceQuota(
                      q.memoryLimitBytes(),
                      q.computeWeight() > 0 ? q.computeWeight() : 100,
                      cap,
                      q.priority(),
                      d.npu().phyId(),
                      d.npu().uuid());
                })
            .toList();
    EnumSet<PolicyFlag> policy = EnumSet.of(PolicyFlag.MEM_ENFORCE);
    if (devices.stream().anyMatch(d -> d.softQuota().computeWeight() > 0)) {
      policy.add(PolicyFlag.COMPUTE_ENFORCE);
      policy.add(PolicyFlag.COMPUTE_FAIL_OPEN);
    }
    if (quotas.stream().anyMatch(q -> q.computeCapPct() > 0)) {
      policy.add(PolicyFlag.HARD_CAP);
    }
    // devices without an AI-core share (memory only) have no policy and take no part
    Set<Optional<SharingPolicy>> sharing =
        devices.stream()
            .filter(d -> d.softQuota().computeWeight() > 0)
            .map(d -> d.softQuota().policy())
            .collect(java.util.stream.Collectors.toSet());
    if (sharing.size() > 1) {
      throw new IllegalArgumentException(
          "the devices of one slice have different sharing policies: " + sharing);
    }
    sharing.stream()
        .flatMap(Optional::stream)
        .findFirst()
        .ifPresent(p -> policy.add(PolicyFlag.of(p)));
    return new RegionConfig(quotas, policy, registryDir);
  }

  /** {@link #forSlice(List, String)} of a node plan's region. */
  public static RegionConfig forSlice(RegionToCreate region) {
    return forSlice(region.devices(), region.registryDir());
  }
}
