package io.vnpu.kube.resource;

import io.vnpu.api.slice.RegionToCreate;
import java.io.IOException;

/** Creates a container's quota region file, the one the in-container limiter enforces. */
@FunctionalInterface
public interface QuotaRegionFactory {
  /**
   * Creates (replacing any previous file) the region a slice plan asks for.
   *
   * @return the new region's epoch (header {@code epoch}, random and non-zero): the container's key
   *     in the per-NPU compute registries, the key its limiter looks itself up by
   * @throws IOException when the file cannot be created or written, or the region's content is
   *     invalid (too many devices, a UUID too long)
   */
  long create(RegionToCreate region) throws IOException;
}
