package io.vnpu.quota.model;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.layout.RegionLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Quota of one logical device of a container, as stored in the region's device config table.
 *
 * @param memLimitBytes HBM limit in bytes, 0 = unlimited
 * @param computeWeight AI-core share weight 1..10000 (HAMi {@code NPU_PRIORITY} semantics)
 * @param computeCapPct hard cap of AI-core time in percent 0..100, 0 = no cap
 * @param priority scheduling class (HIGH = 0, NORMAL = 1 in the region)
 * @param physId phy ID of the NPU, -1 when unknown
 * @param uuid device UUID as the device plugin reports it (ASCII, at most 63 bytes), may be empty
 */
public record DeviceQuota(
    long memLimitBytes,
    int computeWeight,
    int computeCapPct,
    Priority priority,
    int physId,
    String uuid) {

  public DeviceQuota {
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(uuid, "uuid");
    if (memLimitBytes < 0) {
      throw new IllegalArgumentException("memLimitBytes must be >= 0 bytes: " + memLimitBytes);
    }
    if (computeWeight < 1 || computeWeight > 10000) {
      throw new IllegalArgumentException("computeWeight must be in 1..10000: " + computeWeight);
    }
    if (computeCapPct < 0 || computeCapPct > 100) {
      throw new IllegalArgumentException("computeCapPct must be in 0..100: " + computeCapPct);
    }
    if (physId < -1) throw new IllegalArgumentException("physId must be >= -1: " + physId);
    byte[] b = uuid.getBytes(StandardCharsets.US_ASCII);
    if (b.length >= RegionLayout.REGION_UUID_BYTES
        || !StandardCharsets.US_ASCII.newEncoder().canEncode(uuid)) {
      throw new IllegalArgumentException("uuid must be ASCII of at most 63 bytes: " + uuid);
    }
  }

  /** A memory-only quota: weight 100, no cap, normal priority, unknown phy ID, no UUID. */
  public static DeviceQuota memoryOnly(long memLimitBytes) {
    return new DeviceQuota(memLimitBytes, 100, 0, Priority.NORMAL, -1, "");
  }
}
