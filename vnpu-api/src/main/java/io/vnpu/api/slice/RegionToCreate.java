package io.vnpu.api.slice;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The quota region the node must create for a soft slice, the file the in-container limiter
 * enforces. {@code vnpu-quota} turns it into the region's content (one rule for policy flags and
 * per-device limits: {@code io.vnpu.quota.model.RegionConfig#forSlice}).
 *
 * @param file host path of the region file
 * @param devices the slice's devices, each with a {@link SliceShare.SoftQuota}, in the order the
 *     container sees them (entry i = logical device i in the container)
 * @param registryDir directory of the per-NPU compute registries as the container sees it (empty =
 *     none)
 */
public record RegionToCreate(Path file, List<SliceDevice> devices, String registryDir) {
  public RegionToCreate {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(registryDir, "registryDir");
    devices = List.copyOf(devices);
    if (devices.isEmpty()) throw new IllegalArgumentException("a region needs at least one device");
    for (SliceDevice d : devices) d.softQuota();
  }
}
