package io.vnpu.kube.resource;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import io.vnpu.quota.files.HostFiles;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Creates the container's quota region with vnpu-quota (layout HVNP v1) as
 * {@link RegionConfig#forSlice(RegionToCreate)} describes it: one device entry per container device
 * in {@code ASCEND_VISIBLE_DEVICES} order, each with its own memory limit and compute weight.
 */
public final class VnpuQuotaRegionFactory implements QuotaRegionFactory {
  private final QuotaRegions regions;

  /** @param regions the JVM's region registry */
  public VnpuQuotaRegionFactory(QuotaRegions regions) {
    this.regions = Objects.requireNonNull(regions, "regions");
  }

  @Override
  public long create(RegionToCreate region) throws IOException {
    Path file = region.file();
    RegionConfig config;
    try {
      config = RegionConfig.forSlice(region);
    } catch (IllegalArgumentException e) {
      throw new IOException("quota region " + file + ": " + e.getMessage(), e);
    }
    // a region left by an earlier container of the same name must not be reused; removed without
    // following links, and the creation below is exclusive and no-follow
    HostFiles.deleteTree(file);
    try (QuotaRegion created = regions.create(file, config)) {
      // created and initialised; the limiter in the container maps it from here on
      return created.epoch();
    }
  }
}
