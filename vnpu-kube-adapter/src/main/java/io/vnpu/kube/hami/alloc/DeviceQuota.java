package io.vnpu.kube.hami.alloc;

import java.util.Objects;

/**
 * The soft-split limits of one device of a container.
 *
 * @param phyId            DCMI phy ID of the NPU
 * @param uuid             die-ID UUID of the NPU
 * @param memoryLimitBytes device memory the container may hold on this NPU, bytes (0 = unlimited)
 * @param computePercent   AI-core percent / compute weight (0 = not set)
 */
public record DeviceQuota(int phyId, String uuid, long memoryLimitBytes, int computePercent) {
  public DeviceQuota {
    Objects.requireNonNull(uuid, "uuid");
    if (memoryLimitBytes < 0) throw new IllegalArgumentException("memoryLimitBytes must be >= 0: " + memoryLimitBytes);
    if (computePercent < 0 || computePercent > 100) {
      throw new IllegalArgumentException("computePercent must be in 0..100: " + computePercent);
    }
  }
}
