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
    HostFiles.ensureTrustedDirectory(root, HostFiles.OWNER_ONLY_DIR);
    HostFiles.deleteTree(dir);
    HostFiles.createPrivateDirectory(dir);
    if (region != null) {
      factory.create(region);
      // the region file is 0666 for any container user; the directory needs no writer
      HostFiles.setMode(dir, REGION_DIR_MODE);
    }
  }
}
