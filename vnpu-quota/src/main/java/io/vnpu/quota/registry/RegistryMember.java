package io.vnpu.quota.registry;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.layout.RegistryLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A container as the node agent registers it on one NPU's compute registry.
 *
 * @param key container key: the epoch of the container's quota region ({@code QuotaRegion#epoch});
 *     the limiter finds its entry by it; non-zero
 * @param name display name (at most 31 UTF-8 bytes, e.g. {@code pod/container})
 * @param weight share weight 1..10000 (HAMi {@code NPU_PRIORITY} semantics)
 * @param capPct hard cap of AI-core time in percent 0..100, 0 = none
 * @param priority strict priority class
 * @param deviceIndex logical device of the container's quota region that is this NPU, 0..15
 * @param region the container's quota region file (host path), recorded in the agents' member
 *     table: the publisher reads its usage there; empty = never published, the container then
 *     counts at its weighted share for its neighbours and {@link ComputeRegistry#entries()} shows
 *     no statistics for it
 * @param policy the container's sharing policy (the entry's flags, read by its neighbours'
 *     limiters); empty = weight and cap as given
 */
public record RegistryMember(
    long key,
    String name,
    int weight,
    int capPct,
    Priority priority,
    int deviceIndex,
    Optional<Path> region,
    Optional<SharingPolicy> policy) {
  public RegistryMember {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(region, "region");
    if (key == 0) throw new IllegalArgumentException("key must be non-zero");
    if (weight < 1 || weight > 10000)
      throw new IllegalArgumentException("weight must be in 1..10000: " + weight);
    if (capPct < 0 || capPct > 100)
      throw new IllegalArgumentException("capPct must be in 0..100: " + capPct);
    if (deviceIndex < 0 || deviceIndex >= RegionLayout.REGION_MAX_DEVICES) {
      throw new IllegalArgumentException("deviceIndex must be in 0..15: " + deviceIndex);
    }
    if (name.getBytes(StandardCharsets.UTF_8).length >= RegistryLayout.REG_NAME_BYTES) {
      throw new IllegalArgumentException("name longer than 31 bytes: " + name);
    }
  }

  /** A container without a sharing policy. */
  public RegistryMember(
      long key,
      String name,
      int weight,
      int capPct,
      Priority priority,
      int deviceIndex,
      Optional<Path> region) {
    this(key, name, weight, capPct, priority, deviceIndex, region, Optional.empty());
  }

  /** This member under sharing policy {@code p}. */
  public RegistryMember withPolicy(Optional<SharingPolicy> p) {
    return new RegistryMember(key, name, weight, capPct, priority, deviceIndex, region, p);
  }

  /** The entry's {@code RE_FLAGS}: the sharing policy's {@code REG_EF_*} bit, 0 for none. */
  public int entryFlags() {
    return policy
        .map(
            p ->
                switch (p) {
                  case FIXED_SHARE -> RegistryLayout.REG_EF_FIXED_SHARE;
                  case ELASTIC -> RegistryLayout.REG_EF_ELASTIC;
                  case BEST_EFFORT -> RegistryLayout.REG_EF_BEST_EFFORT;
                })
        .orElse(0);
  }

  /** A container whose logical device 0 is this NPU, registered with its quota region. */
  public RegistryMember(
      long key, String name, int weight, int capPct, Priority priority, Path region) {
    this(key, name, weight, capPct, priority, 0, Optional.of(region));
  }

  /**
   * A container registered without a region (its usage is never published: it counts at its
   * weighted share).
   */
  public RegistryMember(long key, String name, int weight, int capPct, Priority priority) {
    this(key, name, weight, capPct, priority, 0, Optional.empty());
  }
}
