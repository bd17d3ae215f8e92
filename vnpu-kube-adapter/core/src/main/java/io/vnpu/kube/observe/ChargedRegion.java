package io.vnpu.kube.observe;

import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What the node agent charged a soft slice, as the agent keeps it where no container reaches: the
 * configuration it wrote into the slice's quota region when it created it, or, where the limiter
 * creates the region itself (HAMi with upstream hami-vnpu-core), the configuration it would have
 * written from the same charge. The region itself is the container's to rewrite: the limits,
 * weights, caps, priorities, phy IDs and UUIDs the agent reports for the slice come from here,
 * never from the region.
 *
 * @param key the region's epoch at creation, its key in the compute registries (non-zero); empty
 *     when the limiter made the region (its epoch, registry and device table are the limiter's)
 * @param config per device its memory limit (bytes), compute weight, cap (percent), priority, phy
 *     ID and UUID; the policy flags; the registry directory as the container sees it
 */
public record ChargedRegion(OptionalLong key, RegionConfig config) {
  public ChargedRegion {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(config, "config");
    if (key.isPresent() && key.getAsLong() == 0)
      throw new IllegalArgumentException("key must be non-zero");
  }

  /** A region the agent created with {@code config}; its epoch {@code key} (non-zero). */
  public static ChargedRegion agentMade(long key, RegionConfig config) {
    return new ChargedRegion(OptionalLong.of(key), config);
  }

  /**
   * A region the limiter creates itself from the container's environment; {@code config} is what
   * the agent charged (as {@link RegionConfig#forSlice} makes it).
   */
  public static ChargedRegion limiterMade(RegionConfig config) {
    return new ChargedRegion(OptionalLong.empty(), config);
  }

  /**
   * The fields in which a slice's region, as read now, disagrees with this record: the one rule of
   * what is compared, for the metrics and {@code vnpu top}.
   *
   * @param inRegion the configuration read from the region
   * @param usage the usage read from the region (its per-device limits are compared too)
   * @param epoch the region's epoch as read
   * @return field name ({@code epoch, device_count, policy, registry_dir, memory_limit,
   *     compute_weight, compute_cap_pct, priority, phy_id, uuid}) to the number of devices that
   *     disagree in it (1 for a slice-wide field), sorted by name; empty when all agree. Of a
   *     region the limiter made only {@code memory_limit}, and {@code device_count} when the region
   *     has fewer devices than were charged, are compared: the rest of its table is the limiter's
   *     own (from the environment: 16 devices, no phy IDs or UUIDs), not a charge
   */
  public Map<String, Integer> disagreements(
      RegionConfig inRegion, UsageSnapshot usage, long epoch) {
    return key.isPresent()
        ? agentRegionDisagreements(inRegion, usage, epoch)
        : limiterRegionDisagreements(inRegion, usage);
  }

  private Map<String, Integer> limiterRegionDisagreements(
      RegionConfig inRegion, UsageSnapshot usage) {
    Map<String, Integer> fields = new TreeMap<>();
    if (inRegion.devices().size() < config.devices().size()
        || usage.devices().size() < config.devices().size())
      fields.merge("device_count", 1, Integer::sum);
    for (int d = 0; d < config.devices().size(); d++) {
      if (memoryLimitDiffers(d, inRegion, usage)) fields.merge("memory_limit", 1, Integer::sum);
    }
    return fields;
  }

  private boolean memoryLimitDiffers(int d, RegionConfig inRegion, UsageSnapshot usage) {
    long want = config.devices().get(d).memLimitBytes();
    return d < usage.devices().size() && usage.devices().get(d).limitBytes() != want
        || d < inRegion.devices().size() && inRegion.devices().get(d).memLimitBytes() != want;
  }

  private Map<String, Integer> agentRegionDisagreements(
      RegionConfig inRegion, UsageSnapshot usage, long epoch) {
    Map<String, Integer> fields = new TreeMap<>();
    if (epoch != key.getAsLong()) fields.merge("epoch", 1, Integer::sum);
    if (inRegion.devices().size() != config.devices().size()
        || usage.devices().size() != config.devices().size())
      fields.merge("device_count", 1, Integer::sum);
    if (!inRegion.policy().equals(config.policy())) fields.merge("policy", 1, Integer::sum);
    if (!inRegion.registryDir().equals(config.registryDir()))
      fields.merge("registry_dir", 1, Integer::sum);
    for (int d = 0; d < config.devices().size(); d++) {
      DeviceQuota want = config.devices().get(d);
      if (memoryLimitDiffers(d, inRegion, usage)) fields.merge("memory_limit", 1, Integer::sum);
      if (d >= inRegion.devices().size()) continue;
      DeviceQuota got = inRegion.devices().get(d);
      if (got.computeWeight() != want.computeWeight())
        fields.merge("compute_weight", 1, Integer::sum);
      if (got.computeCapPct() != want.computeCapPct())
        fields.merge("compute_cap_pct", 1, Integer::sum);
      if (got.priority() != want.priority()) fields.merge("priority", 1, Integer::sum);
      if (got.physId() != want.physId()) fields.merge("phy_id", 1, Integer::sum);
      if (!got.uuid().equals(want.uuid())) fields.merge("uuid", 1, Integer::sum);
    }
    return fields;
  }
}
