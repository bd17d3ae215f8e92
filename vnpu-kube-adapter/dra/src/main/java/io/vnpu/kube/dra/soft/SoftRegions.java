package io.vnpu.kube.dra.soft;

import io.vnpu.api.slice.RegionToCreate;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * The node side of soft shares: quota regions and their compute-registry entries. {@code
 * DeviceState} calls these in order, recording each step in the checkpoint.
 */
public interface SoftRegions {

  /** Where regions and registries are, and the limiter. */
  SoftSlicing layout();

  /**
   * Creates the region's directory afresh, the region in it, and registers it in the compute
   * registry of each of its NPUs (weight, cap and priority of that entry of the region).
   *
   * @param name display name of the registry entries, e.g. {@code namespace/claim}
   * @return the region's epoch (its key in the compute registries)
   * @throws IOException naming the path when the directory, region or a registration cannot be
   *     made (nothing stays registered and the directory is removed again)
   */
  long create(Path dir, RegionToCreate region, String name) throws IOException;

  /**
   * Unregisters {@code key} (when not null) from every registry and removes the region directory
   * without following links; what is already gone is fine. The directory and the region file are
   * writable by the container: what cannot be removed there is logged and left for the next sweep,
   * never an error (the share is gone once it is unregistered).
   *
   * @throws IOException naming the registry that cannot be changed
   */
  void remove(Path dir, Long key) throws IOException;

  /**
   * Whether {@code dir} holds a region (a regular file, links not followed): a share whose
   * checkpoint record was lost is adopted then, not created again under its running container.
   */
  boolean holdsRegion(Path dir);

  /**
   * The key the registrations of the region in {@code dir} have, found through the registries
   * (never read from the region, which the container may rewrite).
   *
   * @return empty when no registry holds the region (memory only, or not registered)
   * @throws IOException when a registry cannot be read
   */
  java.util.Optional<Long> registeredKey(Path dir) throws IOException;

  /**
   * Start-up clean-up: removes the region directories under the region root that are not in
   * {@code keep} (left by a crash or a lost checkpoint), then every registry entry whose region is
   * gone.
   *
   * @return what was removed, for the log
   * @throws IOException when the region root or a registry cannot be read
   */
  java.util.List<String> sweep(Set<Path> keep) throws IOException;
}
