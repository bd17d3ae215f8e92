package io.vnpu.kube.resource;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A container's host directory holding the quota region this agent creates for it (HAMi soft
 * split and MindCluster soft sharing), one rule for both backends.
 */
public final class ContainerRegionDirectory {
  /** Container directory holding a region this agent created: {@code rwxr-xr-x}. */
  public static final Set<PosixFilePermission> REGION_DIR_MODE = PosixFilePermissions.fromString("rwxr-xr-x");

  private ContainerRegionDirectory() {}

  /**
   * Makes {@code dir} afresh under {@code root} and, if {@code region} is given, creates it there.
   * HostFiles rules: the root is ours alone; the directory is never reused (a previous one is
   * removed without following links) and stays 0700 until the region in it is complete, so nobody
   * can plant a link the creation would follow. The caller removes {@code dir} on failure.
   *
   * @param region the region to create; null leaves the directory 0700 for the caller to open
   * @throws IOException when a directory or the region cannot be created
   */
  public static void create(Path root, Path dir, QuotaRegionFactory factory, RegionToCreate region)
      throws IOException {
    createRegion(root, dir, factory, region);
  }

  /**
   * As {@link #create} with a region, then registers the container in the compute registries of its
   * NPUs ({@link ComputeRegistrations#register}), so its AI-core cap and weight hold among its
   * neighbours. The registry directory is made even when nothing is registered: the container
   * mounts it. On failure nothing stays registered; the caller removes {@code dir}.
   *
   * @param name display name of the registry entries (e.g. {@code namespace/pod})
   * @return the region's key in the registries
   * @throws IOException when a directory, the region or a registration cannot be made
   */
  public static long createRegistered(Path root, Path dir, QuotaRegionFactory factory, RegionToCreate region,
      ComputeRegistrations registrations, String name) throws IOException {
    registrations.ensureDirectory();
    long key = createRegion(root, dir, factory, region);
    registrations.register(region.file(), key, name, region);
    return key;
  }

  private static long createRegion(Path root, Path dir, QuotaRegionFactory factory, RegionToCreate region)
      throws IOException {
    HostFiles.ensureTrustedDirectory(root, HostFiles.OWNER_ONLY_DIR);
    HostFiles.deleteTree(dir);
    HostFiles.createPrivateDirectory(dir);
    if (region == null) return 0;
    long key = factory.create(region);
    // the region file is 0666 for any container user; the directory needs no writer
    HostFiles.setMode(dir, REGION_DIR_MODE);
    return key;
  }
}
