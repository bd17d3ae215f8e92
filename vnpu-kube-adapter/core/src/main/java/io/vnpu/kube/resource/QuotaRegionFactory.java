package io.vnpu.kube.resource;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Objects;

/** Writes a slice's quota region file, the one the in-container limiter enforces. */
@FunctionalInterface
public interface QuotaRegionFactory {
  /**
   * Creates (replacing any previous file) the region a slice asks for.
   *
   * @param region where, and for which devices
   * @param config the region's content, {@link RegionConfig#forSlice(RegionToCreate)} of {@code
   *     region}, computed once by the caller (the compute registrations use the same)
   * @return the new region's epoch (header {@code epoch}, random and non-zero): the slice's key in
   *     the per-NPU compute registries, the key its limiter looks itself up by
   * @throws IOException when the file cannot be created or written
   */
  long create(RegionToCreate region, RegionConfig config) throws IOException;

  /**
   * The factory writing regions with vnpu-quota (layout HVNP v1): a file left by an earlier slice
   * of the same name is removed without following links, and the creation is exclusive and
   * no-follow.
   */
  static QuotaRegionFactory writing(QuotaRegions regions) {
    Objects.requireNonNull(regions, "regions");
    return (region, config) -> {
      try (QuotaRegion created = createAfresh(regions, region, config)) {
        // created and initialised; the limiter in the container maps it from here on
        return created.epoch();
      }
    };
  }

  private static QuotaRegion createAfresh(
      QuotaRegions regions, RegionToCreate region, RegionConfig config) throws IOException {
    try {
      return regions.create(region.file(), config);
    } catch (FileAlreadyExistsException left) {
      // the usual case is a fresh directory: the removal walk only when something is there
      HostFiles.deleteTree(region.file());
      return regions.create(region.file(), config);
    }
  }
}
