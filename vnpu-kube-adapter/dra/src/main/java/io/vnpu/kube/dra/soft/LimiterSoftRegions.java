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
      registrations.unregister(key); // the registry is ours alone: a failure here is real
    }
    // the registration is gone: what is left in the directory is the container's own business
    if (removeTree(dir.resolve(SoftSlicing.REGION_FILE))) {
      removeTree(dir);
    }
  }

  /**
   * Removes what the container can write, best-effort: the request's directory and the region file
   * in it. The container may have replaced either with a tree deeper than
   * {@link HostFiles#deleteTree} walks, or with anything else; once the registration is gone,
   * what is left is its own files, no share, so it is logged (and retried by the next sweep), never
   * an error that would keep the claim prepared (its capacity lost) or stop the sweep of the other
   * directories.
   */
  private static boolean removeTree(Path path) {
    try {
      HostFiles.deleteTree(path);
      return true;
    } catch (IOException e) {
      LOG.warn("soft share leftovers {} (the container could write them) are not removed: {}; the"
          + " share and its registration are gone, the next sweep retries", path, e.getMessage());
      return false;
    }
  }

  @Override
  public boolean holdsRegion(Path dir) {
    return Files.isRegularFile(dir.resolve(SoftSlicing.REGION_FILE), LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public java.util.Optional<Long> registeredKey(Path dir) throws IOException {
    return registrations.keyOf(dir.resolve(SoftSlicing.REGION_FILE));
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
            if (removeTree(d.resolve(SoftSlicing.REGION_FILE)) && removeTree(d)) removed.add(d.toString());
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
