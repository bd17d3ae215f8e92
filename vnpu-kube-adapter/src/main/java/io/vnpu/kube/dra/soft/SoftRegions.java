package io.vnpu.kube.dra.soft;

import io.vnpu.api.slice.RegionToCreate;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The node side of soft shares: quota regions and compute-registry entries. {@code DeviceState}
 * calls these in order, recording each step in the checkpoint first.
 */
public interface SoftRegions {

  /** Where regions and registries are, and the limiter. */
  SoftSlicing layout();

  /**
   * Creates the region's directory afresh and the region in it.
   *
   * @return the region's epoch (its key in the compute registries)
   * @throws IOException naming the path when the directory or region cannot be created (the
   *     directory is removed again)
   */
  long create(Path dir, RegionToCreate region) throws IOException;

  /**
   * Registers a share in the compute registry of NPU {@code phyId} (same key: updated in place),
   * with an activity link to {@code regionFile}.
   *
   * @throws IOException naming the registry when it cannot be written
   */
  void register(int phyId, long key, String name, int weight, int capPct,
      io.vnpu.api.model.Priority priority, int deviceIndex, Path regionFile) throws IOException;

  /**
   * Removes the entry {@code key} from NPU {@code phyId}'s registry (absent: nothing happens).
   *
   * @throws IOException naming the registry when it cannot be written
   */
  void unregister(int phyId, long key) throws IOException;

  /**
   * Removes a region directory and everything in it, without following links (absent: nothing
   * happens).
   *
   * @throws IOException naming the path when it cannot be removed
   */
  void remove(Path dir) throws IOException;
}
