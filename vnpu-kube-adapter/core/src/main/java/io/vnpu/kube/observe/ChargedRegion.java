package io.vnpu.kube.observe;

import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the node agent wrote into a soft slice's quota region when it created it from the
 * scheduler's charge, as the agent keeps it where no container reaches. The region itself is the
 * container's to rewrite: the limits, weights, caps, priorities, phy IDs and UUIDs the agent
 * reports for the slice come from here, never from the region.
 *
 * @param key the region's epoch at creation: its key in the compute registries (non-zero)
 * @param config the configuration the region was created with: per device its memory limit (bytes),
 *     compute weight, cap (percent), priority, phy ID and UUID; the policy flags; the registry
 *     directory as the container sees it
 */
public record ChargedRegion(long key, RegionConfig config) {
  public ChargedRegion {
    Objects.requireNonNull(config, "config");
    if (key == 0) throw new IllegalArgumentException("key must be non-zero");
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
   *     disagree in it (1 for a slice-wide field), sorted by name; empty when all agree
   */
  public Map<String, Integer> disagreements(
      RegionConfig inRegion, UsageSnapshot usage, long epoch) {
    Map<String, Integer> fields = new TreeMap<>();
    if (epoch != key) fields.merge("epoch", 1, Integer::sum);
    if (inRegion.devices().size() != config.devices().size()
        || usage.devices().size() != config.devices().size())
      fields.merge("device_count", 1, Integer::sum);
    if (!inRegion.policy().equals(config.policy())) fields.merge("policy", 1, Integer::sum);
    if (!inRegion.registryDir().equals(config.registryDir()))
      fields.merge("registry_dir", 1, Integer::sum);
    for (int d = 0; d < config.devices().size(); d++) {
      DeviceQuota want = config.devices().get(d);
      boolean limitDiffers =
          d < usage.devices().size() && usage.devices().get(d).limitBytes() != want.memLimitBytes()
              || d < inRegion.devices().size()
                  && inRegion.devices().get(d).memLimitBytes() != want.memLimitBytes();
      if (limitDiffers) fields.merge("memory_limit", 1, Integer::sum);
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
