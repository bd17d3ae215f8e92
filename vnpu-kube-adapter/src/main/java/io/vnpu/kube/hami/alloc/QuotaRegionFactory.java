package io.vnpu.kube.hami.alloc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Creates a container's quota region file, the one the in-container limiter enforces. */
@FunctionalInterface
public interface QuotaRegionFactory {
  /**
   * Creates (replacing any previous file) the region at {@code file} with one device entry per
   * element of {@code devices}, in order.
   *
   * @throws IOException when the file cannot be created or written
   */
  void create(Path file, List<DeviceQuota> devices) throws IOException;
}
