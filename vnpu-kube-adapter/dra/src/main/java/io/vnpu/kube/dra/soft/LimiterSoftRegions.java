package io.vnpu.kube.dra.soft;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.kube.resource.ComputeRegistrations;
import io.vnpu.kube.resource.ContainerRegionDirectory;
import io.vnpu.kube.resource.VnpuQuotaRegionFactory;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * {@link SoftRegions} with the same code the device-plugin backends and {@code vnpu run} use: the
 * directory and region by {@link ContainerRegionDirectory#createRegistered} (region content by
 * {@code RegionConfig.forSlice} through {@link VnpuQuotaRegionFactory}), the registry entries by
 * {@link ComputeRegistrations}. Thread-safe; {@link #close()} closes the registries it opened.
 */
public final class LimiterSoftRegions implements SoftRegions, AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LimiterSoftRegions.class);

  private final SoftSlicing layout;
  private final VnpuQuotaRegionFactory factory;
  private final ComputeRegistrations registrations;

  public LimiterSoftRegions(SoftSlicing layout, QuotaRegions regions) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.factory = new VnpuQuotaRegionFactory(Objects.requireNonNull(regions, "regions"));
    this.registrations = new ComputeRegistrations(layout.registryDir(), layout.regionRoot(),
        SoftSlicing.REGION_FILE);
  }

  @Override
  public SoftSlicing layout() {
    return layout;
  }

  @Override
  public long create(Path dir, RegionToCreate region, String name) throws IOException {
    try {
      return ContainerRegionDirectory.createRegistered(layout.regionRoot(), dir, factory, region,
          registrations, name);
    } catch (IOException | RuntimeException e) {
      HostFiles.deleteQuietly(dir);
      throw e;
    }
  }

  @Override
  public void remove(Path dir, Long key) throws IOException {
    if (key != null) {
      registrations.unregister(key);
    }
    HostFiles.deleteTree(dir.resolve(SoftSlicing.REGION_FILE));
    removeTree(dir);
  }

  /**
   * Removes a request's directory once its region is gone. The container could write the directory
   * (a tree deeper than {@link HostFiles#deleteTree} walks, say): what is left then is its own files,
   * no share and no registration, so it is logged (and retried by the next sweep), never an error
   * that would keep the claim prepared or stop the sweep of the other directories.
   */
  private static boolean removeTree(Path dir) {
    try {
      HostFiles.deleteTree(dir);
      return true;
    } catch (IOException e) {
      LOG.warn("soft share directory {}: its region is removed, the rest not: {}; the next sweep retries", dir,
          e.getMessage());
      return false;
    }
  }

  @Override
  public List<String> sweep(Set<Path> keep) throws IOException {
    List<String> removed = new ArrayList<>();
    if (Files.isDirectory(layout.regionRoot(), LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(layout.regionRoot())) {
        for (Path d : dirs) {
          if (!keep.contains(d)) {
            // the region first: a directory the container made impossible to remove must not keep
            // the registration (reconcile keeps the entry of any region still there)
            HostFiles.deleteTree(d.resolve(SoftSlicing.REGION_FILE));
            if (removeTree(d)) removed.add(d.toString());
          }
        }
      }
    }
    removed.addAll(registrations.reconcile());
    return removed;
  }

  @Override
  public void close() throws IOException {
    registrations.close();
  }
}
