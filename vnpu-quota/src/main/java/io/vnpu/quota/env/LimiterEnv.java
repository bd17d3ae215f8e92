package io.vnpu.quota.env;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The environment the limiter ({@code libvnpu.so}) reads, as {@code native/limiter/config.h}
 * defines it: the HAMi device-plugin contract ({@code NPU_LOCAL_SHM_PATH}, {@code NPU_MEM_QUOTA} in
 * MiB, {@code NPU_PRIORITY}) plus vnpu's {@code VNPU_DEVICE_COUNT} and {@code
 * VNPU_COMPUTE_CAP_PCT}. Every adapter (HAMi soft split, MindCluster soft share, DRA soft shares,
 * {@code vnpu run}) takes the names and the MiB conversion from here; {@code
 * LimiterEnvConformanceTest} holds each {@code VNPU_ENV_<NAME>} macro of the header equal to the
 * constant {@code <NAME>} here.
 *
 * <p>The region the agent creates is what the limiter enforces; these variables only tell the
 * limiter where it is and, when it must create one itself (a host workload, upstream HAMi), what to
 * put in it.
 *
 * @param regionPath the quota region as the workload sees it ({@code NPU_LOCAL_SHM_PATH})
 * @param memoryLimitBytes the memory limit of the region's first device, bytes; {@code
 *     NPU_MEM_QUOTA} gets it in whole MiB, rounded down (never more than the region holds); 0 =
 *     unlimited (only {@code vnpu run} creates such regions)
 * @param priority {@code NPU_PRIORITY} (the compute weight) when set
 */
public record LimiterEnv(String regionPath, long memoryLimitBytes, OptionalInt priority) {
  /** Region file path ({@code VNPU_ENV_REGION_PATH}). */
  public static final String REGION_PATH = "NPU_LOCAL_SHM_PATH";

  /** Memory limit of every device, MiB ({@code VNPU_ENV_MEM_QUOTA}). */
  public static final String MEM_QUOTA = "NPU_MEM_QUOTA";

  /** Compute weight; HAMi passes the core percent ({@code VNPU_ENV_PRIORITY}). */
  public static final String PRIORITY = "NPU_PRIORITY";

  /** Devices in the container, 1..16 ({@code VNPU_ENV_DEVICE_COUNT}). */
  public static final String DEVICE_COUNT = "VNPU_DEVICE_COUNT";

  /** Hard AI-core ceiling in percent, 0 = none ({@code VNPU_ENV_COMPUTE_CAP_PCT}). */
  public static final String COMPUTE_CAP_PCT = "VNPU_COMPUTE_CAP_PCT";

  /** Bytes per unit of {@link #MEM_QUOTA}: one MiB. */
  public static final long MEM_QUOTA_UNIT_BYTES = 1024L * 1024L;

  /** The weight the limiter uses without {@link #PRIORITY}. */
  public static final long DEFAULT_PRIORITY = 100;

  /** Largest {@link #COMPUTE_CAP_PCT}. */
  public static final long MAX_COMPUTE_CAP_PCT = 100;

  public LimiterEnv {
    Objects.requireNonNull(regionPath, "regionPath");
    Objects.requireNonNull(priority, "priority");
    if (regionPath.isEmpty() || regionPath.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(REGION_PATH + " = \"" + regionPath + "\": not a path");
    }
    if (memoryLimitBytes < 0) {
      throw new IllegalArgumentException(
          MEM_QUOTA + ": memory limit " + memoryLimitBytes + " bytes is negative");
    }
  }

  /** The region at {@code regionPath} with a memory limit and no {@code NPU_PRIORITY}. */
  public static LimiterEnv of(String regionPath, long memoryLimitBytes) {
    return new LimiterEnv(regionPath, memoryLimitBytes, OptionalInt.empty());
  }

  /** The region at host path {@code region} (a host workload sees the host's paths). */
  public static LimiterEnv of(Path region, long memoryLimitBytes, int priority) {
    return new LimiterEnv(region.toString(), memoryLimitBytes, OptionalInt.of(priority));
  }

  /** This environment with {@code NPU_PRIORITY} = {@code priority}. */
  public LimiterEnv withPriority(int priority) {
    return new LimiterEnv(regionPath, memoryLimitBytes, OptionalInt.of(priority));
  }

  /**
   * {@code bytes} as {@link #MEM_QUOTA} gives it: whole MiB, rounded down.
   *
   * @throws IllegalArgumentException when {@code bytes} is negative
   */
  public static long memQuotaMib(long bytes) {
    if (bytes < 0)
      throw new IllegalArgumentException(MEM_QUOTA + ": " + bytes + " bytes is negative");
    return bytes / MEM_QUOTA_UNIT_BYTES;
  }

  /** {@code mib} MiB in bytes, as the limiter reads {@link #MEM_QUOTA}. */
  public static long bytesOfMib(long mib) {
    return Math.multiplyExact(mib, MEM_QUOTA_UNIT_BYTES);
  }

  /**
   * The variables, in this order: {@link #REGION_PATH}, {@link #MEM_QUOTA}, then {@link #PRIORITY}
   * when set.
   */
  public Map<String, String> variables() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put(REGION_PATH, regionPath);
    v.put(MEM_QUOTA, Long.toString(memQuotaMib(memoryLimitBytes)));
    priority.ifPresent(p -> v.put(PRIORITY, Integer.toString(p)));
    return v;
  }
}
