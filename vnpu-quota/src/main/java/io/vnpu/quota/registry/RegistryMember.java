package io.vnpu.quota.registry;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.layout.RegistryLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A container as the node agent registers it on one NPU's compute registry.
 *
 * @param key container key: the epoch of the container's quota region ({@code QuotaRegion#epoch});
 *     the limiter finds its entry by it; non-zero
 * @param name display name (at most 31 UTF-8 bytes, e.g. {@code pod/container})
 * @param weight share weight 1..10000 (HAMi {@code NPU_PRIORITY} semantics)
 * @param capPct hard cap of AI-core time in percent 0..100, 0 = none
 * @param priority strict priority class
 */
public record RegistryMember(long key, String name, int weight, int capPct, Priority priority) {
  public RegistryMember {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(priority, "priority");
    if (key == 0) throw new IllegalArgumentException("key must be non-zero");
    if (weight < 1 || weight > 10000) throw new IllegalArgumentException("weight must be in 1..10000: " + weight);
    if (capPct < 0 || capPct > 100) throw new IllegalArgumentException("capPct must be in 0..100: " + capPct);
    if (name.getBytes(StandardCharsets.UTF_8).length >= RegistryLayout.REG_NAME_BYTES) {
      throw new IllegalArgumentException("name longer than 31 bytes: " + name);
    }
  }
}
