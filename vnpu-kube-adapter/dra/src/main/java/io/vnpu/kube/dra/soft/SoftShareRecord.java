package io.vnpu.kube.dra.soft;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;
import java.util.Objects;

/**
 * The soft share of one prepared (device, shareID), as recorded in the checkpoint: what the
 * scheduler charged, what the limiter enforces, and where its quota region is.
 *
 * @param memoryBytes {@code consumedCapacity} memory, bytes: the region's memory limit
 * @param cores {@code consumedCapacity} AI-core percent (1..100)
 * @param weight compute weight 1..10000 among busy shares of the chip; 0 = memory only
 * @param capPct ceiling of AI-core time in percent, 0 = none (work-conserving)
 * @param priority launch priority class
 * @param regionDir host directory of the quota region of the share's request (recorded before it is
 *     created, so a crash leaves a path to remove)
 * @param deviceIndex entry of the region that is this device (its logical device in the container)
 * @param registryKey the region's epoch, the share's key in its NPU's compute registry; null until
 *     the region exists (recorded before registering, so unregistering never misses it)
 * @param policy sharing policy of the share ({@code docs/sharing-policies.md}); null = none
 *     (checkpoints written before issue 28: weight and ceiling as recorded)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SoftShareRecord(
    long memoryBytes,
    int cores,
    int weight,
    int capPct,
    Priority priority,
    String regionDir,
    int deviceIndex,
    Long registryKey,
    SharingPolicy policy) {
  public SoftShareRecord {
    Objects.requireNonNull(regionDir, "regionDir");
    priority = priority == null ? Priority.NORMAL : priority;
  }

  /** The same share with its registry key. */
  public SoftShareRecord withKey(long key) {
    return new SoftShareRecord(
        memoryBytes, cores, weight, capPct, priority, regionDir, deviceIndex, key, policy);
  }
}
