package io.vnpu.kube.observe;

import io.vnpu.quota.model.RegionConfig;
import java.util.Objects;

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
}
