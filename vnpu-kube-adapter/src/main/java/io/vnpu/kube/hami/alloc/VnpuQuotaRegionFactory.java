package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import io.vnpu.quota.files.HostFiles;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Creates the container's quota region with vnpu-quota (layout HVNP v1): one device entry per
 * container device in {@code ASCEND_VISIBLE_DEVICES} order, each with its own memory limit and,
 * when the scheduler charged AI-core percent, its compute weight. Memory is always enforced;
 * compute is enforced (fail-open on registry trouble) when any device has a percent.
 */
public final class VnpuQuotaRegionFactory implements QuotaRegionFactory {
  private final QuotaRegions regions;
  private final String registryDir;

  /**
   * @param regions     the JVM's region registry
   * @param registryDir directory of the per-NPU compute registries as the container sees it,
   *                    e.g. {@code /hami-shared-region}
   */
  public VnpuQuotaRegionFactory(QuotaRegions regions, String registryDir) {
    this.regions = Objects.requireNonNull(regions, "regions");
    this.registryDir = Objects.requireNonNull(registryDir, "registryDir");
  }

  @Override
  public void create(Path file, List<DeviceQuota> devices) throws IOException {
    boolean compute = devices.stream().anyMatch(d -> d.computePercent() > 0);
    Set<PolicyFlag> policy = compute
        ? EnumSet.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE, PolicyFlag.COMPUTE_FAIL_OPEN)
        : EnumSet.of(PolicyFlag.MEM_ENFORCE);
    List<io.vnpu.quota.model.DeviceQuota> quotas = devices.stream()
        .map(d -> new io.vnpu.quota.model.DeviceQuota(d.memoryLimitBytes(),
            d.computePercent() > 0 ? d.computePercent() : 100, 0, Priority.NORMAL, d.phyId(), d.uuid()))
        .toList();
    RegionConfig config;
    try {
      config = new RegionConfig(quotas, policy, registryDir);
    } catch (IllegalArgumentException e) {
      throw new IOException("quota region " + file + ": " + e.getMessage(), e);
    }
    // a region left by an earlier container of the same name must not be reused; removed without
    // following links, and the creation below is exclusive and no-follow
    HostFiles.deleteTree(file);
    try (QuotaRegion ignored = regions.create(file, config)) {
      // created and initialised; the limiter in the container maps it from here on
    }
  }
}
