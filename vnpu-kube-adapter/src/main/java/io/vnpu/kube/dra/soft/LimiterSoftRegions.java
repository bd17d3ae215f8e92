package io.vnpu.kube.dra.soft;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.kube.resource.ContainerRegionDirectory;
import io.vnpu.kube.resource.VnpuQuotaRegionFactory;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.host.NpuRegistries;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.RegistryMember;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link SoftRegions} with the same code the device-plugin backends and {@code vnpu run} use: the
 * region directory by {@link ContainerRegionDirectory}, the region by {@link
 * VnpuQuotaRegionFactory} ({@code RegionConfig.forSlice}), the registries by {@link
 * NpuRegistries}. Thread-safe; {@link #close()} closes the registries it opened.
 */
public final class LimiterSoftRegions implements SoftRegions, AutoCloseable {

  private final SoftSlicing layout;
  private final QuotaRegions regions;
  private final VnpuQuotaRegionFactory factory;
  private final NpuRegistries registries;

  public LimiterSoftRegions(SoftSlicing layout, QuotaRegions regions) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.regions = Objects.requireNonNull(regions, "regions");
    this.factory = new VnpuQuotaRegionFactory(regions);
    this.registries = new NpuRegistries(layout.registryDir());
  }

  @Override
  public SoftSlicing layout() {
    return layout;
  }

  @Override
  public long create(Path dir, RegionToCreate region) throws IOException {
    try {
      ContainerRegionDirectory.create(layout.regionRoot(), dir, factory, region);
      try (QuotaRegion r = regions.open(region.file())) {
        return r.epoch();
      }
    } catch (IOException | RuntimeException e) {
      HostFiles.deleteQuietly(dir);
      throw e;
    }
  }

  @Override
  public void register(int phyId, long key, String name, int weight, int capPct,
      Priority priority, int deviceIndex, Path regionFile) throws IOException {
    registries.forNpu(phyId).register(new RegistryMember(key, name, weight, capPct, priority,
        deviceIndex, Optional.of(regionFile)));
  }

  @Override
  public void unregister(int phyId, long key) throws IOException {
    registries.forNpu(phyId).unregister(key);
  }

  @Override
  public void remove(Path dir) throws IOException {
    HostFiles.deleteTree(dir);
  }

  @Override
  public void close() throws IOException {
    registries.close();
  }
}
